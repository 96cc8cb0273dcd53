// The agent's session with its MachineDO: token check, replacement by a newer connection, heartbeat
// timeout, malformed frames.
import { describe, expect, it, onTestFinished } from "vitest";
import { exports } from "cloudflare:workers";
import { admin, callJson, machineOnline, newAccount, seedGpuModels } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { until } from "../../test/support/workerd/poll.ts";

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

  it("the welcome says the MachineDO settles streams, so the agent counts an ended stream's bytes until their credit is back", async () => {
    await seedGpuModels();
    const agent = await FakeAgent.register("welcomed");
    await agent.connect(["rtx4090"]);
    // Gone even when this fails: a GPU left online here would take the next test's launch.
    onTestFinished(() => agent.leave());
    expect(agent.received.find((m) => m.type === "welcome")).toMatchObject({ type: "welcome", machine_id: agent.machineId, settles_streams: true });
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
    first.disconnect();
    await second.leave();
  });

  it("a host that goes silent is marked offline after the heartbeat timeout", async () => {
    const agent = await FakeAgent.register("silent");
    await agent.connect(["rtx4090"]);
    expect(await machineOnline(agent.machineId)).toBe(true);
    agent.stopHeartbeats();
    await until(() => machineOnline(agent.machineId), (online) => !online, "the machine to go offline", 200);
  });

  it("a malformed frame is logged and the connection keeps working", async () => {
    await seedGpuModels();
    const agent = await FakeAgent.register("noisy");
    await agent.connect(["rtx4090"]);
    agent.send({ type: "bogus" } as never);
    agent.send({ type: "container", instance_id: "not-an-id", state: "running", message: "" } as never);
    // Working both ways after them: a launch reaches the agent as a command, and its report lands.
    const { key } = await newAccount();
    const launched = await callJson<{ id: string }>("POST", "/v1/instances", { key, body: { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" } });
    expect(launched.status).toBe(201);
    await agent.waitForCommand(launched.body.id, "create");
    agent.report(launched.body.id, "running");
    await until(() => callJson<{ status: string }>("GET", `/v1/instances/${launched.body.id}`, { key }), (r) => r.body.status === "running", "running");
    expect(await machineOnline(agent.machineId)).toBe(true);
    // The object logs each rejected frame, and the machine going offline, after this test's last
    // request: leaving waits for all of it, so no log line outlives the test's environment.
    await agent.leave();
  });
});
