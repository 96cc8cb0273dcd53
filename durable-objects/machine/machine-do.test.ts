// MachineDO: the agent socket, heartbeats, reconciliation after reconnect, and GPU reservations.
import { describe, expect, it } from "vitest";
import { exports } from "cloudflare:workers";
import { admin, call, callJson, newAccount, seedGpuModels } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { until } from "../../test/support/workerd/poll.ts";

const machineOnline = async (id: number) =>
  ((await admin("GET", "/machines")).body.items as { id: number; online: boolean }[]).find((m) => m.id === id)!.online;

/** An h100 instance that has reached running on `agent`, for a fresh account. */
async function runningOn(agent: FakeAgent): Promise<{ key: string; id: string }> {
  const { key } = await newAccount();
  const { body } = await callJson<{ id: string }>("POST", "/v1/instances", { key, body: { gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" } });
  await agent.waitForCommand(body.id, "create");
  agent.report(body.id, "running");
  await until(() => callJson<{ status: string }>("GET", `/v1/instances/${body.id}`, { key }), (r) => r.body.status === "running", "running");
  return { key, id: body.id };
}

async function takeOffline(agent: FakeAgent): Promise<void> {
  agent.disconnect();
  await until(() => machineOnline(agent.machineId), (online) => !online, "offline");
}

describe("agent endpoint", () => {
  it.each([
    ["no token", undefined],
    ["a malformed token", "Bearer nope"],
    ["a wrong secret", "Bearer gma_1_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"],
    ["a machine that does not exist", "Bearer gma_999_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"],
  ])("%s is refused with 401 before any upgrade", async (_, authorization) => {
    await FakeAgent.register("auth-host");
    const headers: Record<string, string> = { upgrade: "websocket" };
    if (authorization) headers.authorization = authorization;
    const response = await exports.default.fetch(new Request("http://gpu.test/agent/v1/connect", { headers }));
    expect(response.status).toBe(401);
    expect(response.webSocket).toBeNull();
    expect(await response.json()).toEqual({ error: "unauthorized", message: expect.any(String) });
  });

  it("a second connection for the same machine replaces the first", async () => {
    await seedGpuModels();
    const first = await FakeAgent.register("twice");
    await first.connect(["rtx4090"]);
    const second = new FakeAgent(first.machineId, first.token);
    await second.connect(["rtx4090", "rtx4090"]);
    const machines = (await admin("GET", "/machines")).body.items as { id: number; gpus: unknown[]; online: boolean }[];
    expect(machines.find((m) => m.id === first.machineId)).toMatchObject({ online: true });
    await until(async () => ((await admin("GET", "/machines")).body.items as { id: number; gpus: unknown[] }[]).find((m) => m.id === first.machineId)!.gpus.length,
      (n) => n === 2, "the second hello's GPUs");
    second.disconnect();
    first.disconnect();
  });

  it("a host that goes silent is marked offline after the heartbeat timeout", async () => {
    const agent = await FakeAgent.register("silent");
    await agent.connect(["rtx4090"]);
    expect(await machineOnline(agent.machineId)).toBe(true);
    agent.stopHeartbeats();
    await until(() => machineOnline(agent.machineId), (online) => !online, "the machine to go offline", 200);
  });

  it("a malformed frame is logged and the connection keeps working", async () => {
    const agent = await FakeAgent.register("noisy");
    await agent.connect(["rtx4090"]);
    agent.send({ type: "bogus" } as never);
    agent.send({ type: "container", instance_id: "not-an-id", state: "running", message: "" } as never);
    agent.send({ type: "cache", models: ["org/model"] });
    expect(await machineOnline(agent.machineId)).toBe(true);
    agent.disconnect();
  });
});

describe("reconciliation", () => {
  it("a stop sent while the host is offline is applied when it reconnects", async () => {
    await seedGpuModels();
    const agent = await FakeAgent.register("reconcile");
    await agent.connect(["h100-80gb"]);
    const { key, id } = await runningOn(agent);
    await takeOffline(agent);
    expect((await call("POST", `/v1/instances/${id}/stop`, { key })).status).toBe(204);
    await agent.connect(["h100-80gb"], [{ instance_id: id, state: "running", message: "" }]);
    await agent.waitForCommand(id, "stop");
    agent.disconnect();
  });

  it("a container destroyed while offline is removed on return; one the control plane never knew too", async () => {
    const agent = await FakeAgent.register("cleanup");
    await agent.connect(["h100-80gb"]);
    const { key, id } = await runningOn(agent);
    await takeOffline(agent);
    expect((await call("DELETE", `/v1/instances/${id}`, { key })).status).toBe(204);
    const stray = "i-aaaaaaaaaaaaaaaa";
    await agent.connect(["h100-80gb"], [{ instance_id: id, state: "running", message: "" }, { instance_id: stray, state: "stopped", message: "" }]);
    await agent.waitForCommand(id, "destroy");
    await agent.waitForCommand(stray, "destroy");
    agent.disconnect();
  });

  it("a container the host lost while running is created again on reconnect", async () => {
    const agent = await FakeAgent.register("recreate");
    await agent.connect(["h100-80gb"]);
    const { id } = await runningOn(agent);
    await takeOffline(agent);
    await agent.connect(["h100-80gb"], []);
    const creates = await until(async () => agent.commands(id).filter((c) => c.op === "create"), (c) => c.length === 1, "a new create");
    expect(creates[0]!.spec!.instance_id).toBe(id);
    agent.disconnect();
  });
});
