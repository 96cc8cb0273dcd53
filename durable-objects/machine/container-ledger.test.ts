// The container ledger through a reconnecting agent: desired states set while the host was away are
// reconciled on its next hello, and containers the control plane does not know are removed.
import { describe, expect, it } from "vitest";
import { call, callJson, machineOnline, newAccount, seedGpuModels } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { until } from "../../test/support/workerd/poll.ts";

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
