// The launch timeout in workerd: a fake agent that never confirms, the AccountDO's clock moved past
// LAUNCH_TIMEOUT_MS (the default here) and its alarm run.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { launchOn, runningOn } from "../../../test/support/workerd/instances.ts";
import { expectLedgerBalanced } from "../../../test/support/workerd/ledger-audit.ts";
import { until } from "../../../test/support/workerd/poll.ts";
import { advanceClock, freezeClockInEachTest } from "../../../test/support/workerd/test-clock.ts";
import { DEFAULT_LAUNCH_TIMEOUT_MS, launchTimeoutMessage } from "./launch-timeout.ts";

const TIMEOUT = DEFAULT_LAUNCH_TIMEOUT_MS;
const REASON = launchTimeoutMessage(TIMEOUT);
let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("timeout-host", Array(4).fill("rtx4090"));
});
freezeClockInEachTest();

interface Shown {
  status: string;
  status_message: string;
  desired_state: string;
  started_at: string | null;
}

const get = async (key: string, id: string) => (await callJson<Shown>("GET", `/v1/instances/${id}`, { key })).body;
const events = async (key: string, id: string) =>
  (await callJson<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`, { key })).body.items.map((e) => e.message);
const freeGpus = async (key: string) =>
  (await callJson<{ gpus: { model: string; free_gpus: number }[] }>("GET", "/v1/gpus", { key })).body.gpus.find((g) => g.model === "rtx4090")!.free_gpus;
const charges = async (key: string, id: string) =>
  (await callJson<{ items: { kind: string; instance_id: string | null }[] }>("GET", "/v1/billing/ledger?limit=200", { key })).body.items
    .filter((entry) => entry.kind === "charge" && entry.instance_id === id);

/** Moves the AccountDO's clock and rings its alarm, as the platform would once the time has passed. */
async function passTime(accountId: string, ms: number): Promise<void> {
  advanceClock(ms);
  await runDurableObjectAlarm(env.ACCOUNTS.getByName(accountId));
}

/** Until the machine's reports so far have reached their accounts (its report outbox is empty). */
async function reportsDelivered(machineId: number): Promise<void> {
  const queued = () => runInDurableObject(env.MACHINES.getByName(String(machineId)), (_object, state) =>
    state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM outbox").one().n);
  await until(queued, (n) => n === 0, "the machine's reports to be delivered");
}

describe("launch timeout", () => {
  it("a launch its host never confirms is error after LAUNCH_TIMEOUT_MS from the launch, however far the pull got; GPUs freed, nothing charged", async () => {
    const account = await newAccount(10_000_000);
    const free = await freeGpus(account.key);
    const id = await launchOn(agent, account.key);
    await until(() => freeGpus(account.key), (n) => n === free - 1, "the GPU taken");
    await passTime(account.id, TIMEOUT / 2);
    // Progress from the host does not move the deadline.
    agent.report(id, "pulling");
    agent.send({ type: "pull_progress", instance_id: id, percent: 60 });
    agent.report(id, "creating");
    await until(() => events(account.key, id), (log) => log.some((m) => m.startsWith("Creating container")), "the creating event");
    await passTime(account.id, TIMEOUT / 2 - 1);
    expect((await get(account.key, id)).status).toBe("creating");

    await passTime(account.id, 1);
    expect(await get(account.key, id)).toMatchObject({ status: "error", status_message: REASON, desired_state: "running", started_at: null });
    expect((await events(account.key, id))[0]).toBe(`Error: ${REASON}`);
    // The host was creating it: its MachineDO stops it once created, and its GPU is free again.
    await agent.waitForCommand(id, "stop");
    await until(() => freeGpus(account.key), (n) => n === free, "the GPU freed");
    expect(await charges(account.key, id)).toEqual([]);
    expect((await callJson("GET", "/v1/me", { key: account.key })).body.balance_micros).toBe(10_000_000);
  });

  it("a running reported after the timeout does not revive it: the instance stays error and unbilled, and the host stops the container", async () => {
    const account = await newAccount(10_000_000);
    const id = await launchOn(agent, account.key);
    await passTime(account.id, TIMEOUT);
    expect((await get(account.key, id)).status).toBe("error");
    // The alarm told the machine before it returned; nothing was created yet, so nothing to stop.
    expect(agent.commands(id).map((c) => c.op)).toEqual(["create"]);

    agent.report(id, "pulling");
    agent.report(id, "creating");
    agent.report(id, "running");
    await agent.waitForCommand(id, "stop");
    await reportsDelivered(agent.machineId);
    expect(await get(account.key, id)).toMatchObject({ status: "error", status_message: REASON, started_at: null });
    const log = await events(account.key, id);
    expect(log.some((m) => m.includes("instance is running"))).toBe(false);

    await passTime(account.id, 3_600_000);
    expect((await callJson("GET", "/v1/me", { key: account.key })).body.balance_micros).toBe(10_000_000);
    expect(await charges(account.key, id)).toEqual([]);
    await expectLedgerBalanced(account.id);
  });

  it("a start its host never confirms times out the same way; a start the host confirms then runs", async () => {
    const account = await newAccount(10_000_000);
    const free = await freeGpus(account.key);
    const id = await runningOn(agent, account.key);
    expect((await call("POST", `/v1/instances/${id}/stop`, { key: account.key })).status).toBe(204);
    agent.report(id, "stopped");
    await until(() => events(account.key, id), (log) => log.some((m) => m.startsWith("Container stopped")), "the stop done");
    expect((await call("POST", `/v1/instances/${id}/start`, { key: account.key })).status).toBe(204);
    await agent.waitForCommand(id, "start");
    await passTime(account.id, TIMEOUT - 1);
    expect((await get(account.key, id)).status).toBe("starting");

    await passTime(account.id, 1);
    expect(await get(account.key, id)).toMatchObject({ status: "error", status_message: REASON });
    await until(() => freeGpus(account.key), (n) => n === free, "the GPU freed");

    expect((await call("POST", `/v1/instances/${id}/start`, { key: account.key })).status).toBe(204);
    await until(async () => agent.commands(id).filter((c) => c.op === "start").length, (n) => n === 2, "a second start command");
    agent.report(id, "running");
    await until(() => get(account.key, id), (i) => i.status === "running", "running again");
    expect((await get(account.key, id)).status_message).toBe("");
    await call("DELETE", `/v1/instances/${id}`, { key: account.key });
  });

  it("a host that comes back after the timeout with the container running is told to stop it; the instance stays error", async () => {
    // The only host with this model: the launch lands on it.
    const host = await FakeAgent.online("timeout-returning-host", ["h100-80gb"]);
    const account = await newAccount(10_000_000);
    const id = await launchOn(host, account.key, { gpu_model: "h100-80gb" });
    await host.leave();
    await passTime(account.id, TIMEOUT);
    expect(await get(account.key, id)).toMatchObject({ status: "error", status_message: REASON });

    const returned = new FakeAgent(host.machineId, host.token);
    await returned.connect(["h100-80gb"], [{ instance_id: id, state: "running", message: "" }]);
    await returned.waitForCommand(id, "stop");
    expect((await get(account.key, id)).status).toBe("error");
    await returned.leave();
  });
});
