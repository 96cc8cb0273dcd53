// The container ledger through a reconnecting agent: desired states set while the host was away are
// reconciled on its next hello, and containers the control plane does not know are removed. Also what
// the machine keeps per account: the key set, no longer than the account has a container here.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, machineOnline, newAccount, seedGpuModels } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { runningOn as runningWith } from "../../test/support/workerd/instances.ts";
import { proxyGet } from "../../test/support/workerd/proxy-host.ts";
import { until } from "../../test/support/workerd/poll.ts";

const H100 = { gpu_model: "h100-80gb", template: "pytorch" };

/** An h100 instance that has reached running on `agent`, for a fresh account. */
async function runningOn(agent: FakeAgent): Promise<{ key: string; id: string }> {
  const { key } = await newAccount();
  return { key, id: await runningWith(agent, key, H100) };
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

/** What the machine's storage holds: its containers and the accounts it keeps a key set for. */
function machineHolds(agent: FakeAgent): Promise<{ containers: string[]; keySets: string[] }> {
  return runInDurableObject(env.MACHINES.getByName(String(agent.machineId)), (_instance, state) => ({
    containers: state.storage.sql.exec<{ id: string }>("SELECT instance_id AS id FROM containers ORDER BY id").toArray().map((r) => r.id),
    keySets: state.storage.sql.exec<{ id: string }>("SELECT account_id AS id FROM account_key_sets ORDER BY id").toArray().map((r) => r.id),
  }));
}

/** Destroys through the API, has the host report the container gone, and waits until the machine forgot it. */
async function destroyOn(agent: FakeAgent, key: string, id: string): Promise<void> {
  expect((await call("DELETE", `/v1/instances/${id}`, { key })).status).toBe(204);
  await agent.waitForCommand(id, "destroy");
  agent.report(id, "destroyed");
  await until(() => machineHolds(agent), (held) => !held.containers.includes(id), "the container forgotten");
}

describe("account key sets on a machine", () => {
  it("are kept while the account has a container here and forgotten with its last one", async () => {
    const agent = await FakeAgent.online("key-set-gc", ["h100-80gb", "h100-80gb"]);
    agent.serveHttp();
    const { id: accountId, key } = await newAccount();
    const first = await runningWith(agent, key, H100);
    const second = await runningWith(agent, key, H100);
    expect((await machineHolds(agent)).keySets).toEqual([accountId]);
    await destroyOn(agent, key, first);
    expect(await machineHolds(agent)).toEqual({ containers: [second], keySets: [accountId] });
    expect((await proxyGet(second, key)).status, "the key still opens the remaining instance").toBe(200);
    await destroyOn(agent, key, second);
    expect(await machineHolds(agent)).toEqual({ containers: [], keySets: [] });
    agent.disconnect();
  });

  it("come back with the account's next launch here, so its keys open the new instance", async () => {
    const agent = await FakeAgent.online("key-set-return", ["h100-80gb"]);
    agent.serveHttp();
    const { id: accountId, key } = await newAccount();
    await destroyOn(agent, key, await runningWith(agent, key, H100));
    expect((await machineHolds(agent)).keySets).toEqual([]);
    const again = await runningWith(agent, key, H100);
    expect((await machineHolds(agent)).keySets).toEqual([accountId]);
    expect((await proxyGet(again, key)).status, "the key opens the new instance").toBe(200);
    agent.disconnect();
  });
});
