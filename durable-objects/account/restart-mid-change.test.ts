// An AccountDO or a MachineDO reset (state.abort(), as a deployment or a crash would) in the middle
// of a stop or a destroy: the operation completes exactly once afterwards. The reset is placed by
// holding the MachineDO's applyDirectives call for the instance (patched on its class, which the
// objects share with this test's isolate) and aborting one object while the call is held.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, callJson, GPU_MODELS, newAccount } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../test/support/workerd/instances.ts";
import { expectLedgerBalanced } from "../../test/support/workerd/ledger-audit.ts";
import { until } from "../../test/support/workerd/poll.ts";
import { advanceClock, freezeClockInEachTest } from "../../test/support/workerd/test-clock.ts";

const TEN_MINUTES = 600_000;
const DAY_MS = 86_400_000;
/** What ten minutes of one h100 cost: its price accrues exactly, the remainder carried. */
const TEN_MINUTES_MICROS = Math.floor((GPU_MODELS["h100-80gb"].price_hour_micros * TEN_MINUTES) / 3_600_000);
let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("restart-host", Array(4).fill("h100-80gb"));
});
freezeClockInEachTest();

interface Held {
  /** Resolves once the MachineDO holds the call. */
  arrived(): Promise<void>;
  /** Lets the held call go on (once it is held, and only the first call is held). */
  release(): void;
  restore(): void;
}

/**
 * Holds the first applyDirectives call that carries `instanceId`, before or after the MachineDO applies
 * it. Flags are polled on both sides: a promise settled in one object's context would resume the
 * other's code in it, which workerd forbids.
 */
async function holdDirective(instanceId: string, when: "before applying" | "after applying"): Promise<Held> {
  const flags = { arrived: false, released: false };
  let restore = () => {};
  await runInDurableObject(env.MACHINES.getByName(String(agent.machineId)), (instance) => {
    const prototype = Object.getPrototypeOf(instance) as { applyDirectives(this: unknown, directives: unknown[]): unknown };
    const applyDirectives = prototype.applyDirectives;
    let held = false;
    const hold = async () => {
      flags.arrived = true;
      while (!flags.released) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    prototype.applyDirectives = async function (this: unknown, directives: unknown[]) {
      const mine = !held && directives.some((d) => (d as { instance_id?: string }).instance_id === instanceId);
      held ||= mine;
      if (mine && when === "before applying") await hold();
      const result = applyDirectives.call(this, directives);
      if (mine && when === "after applying") await hold();
      return result;
    };
    restore = () => {
      prototype.applyDirectives = applyDirectives;
    };
  });
  return {
    arrived: () => until(async () => flags.arrived, (arrived) => arrived, "the MachineDO to hold the call").then(() => {}),
    release: () => {
      flags.released = true;
    },
    restore: () => restore(),
  };
}

/** Resets the object as a crash or a deployment would; later calls reach a new instance of it. */
async function abort(stub: DurableObjectStub): Promise<void> {
  await runInDurableObject(stub, (_instance, state) => state.abort("reset by the test")).catch(() => {});
}

/** When the account's alarm is set to ring (real time); null: none. */
const alarmAt = (accountId: string) => runInDurableObject(env.ACCOUNTS.getByName(accountId), (_, state) => state.storage.getAlarm());
const events = async (key: string, id: string) =>
  (await callJson<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`, { key })).body.items.map((e) => e.message);
const count = (log: string[], fragment: string) => log.filter((m) => m.includes(fragment)).length;

/**
 * The change took effect once: the instance's GPUs are free again, each event happened once, its ten
 * minutes were charged once, and the ledger sums to a balance short of exactly them.
 */
async function expectDoneOnce({ accountId, key, id, free }: Running, once: string[]): Promise<void> {
  expect(await freeGpus(key)).toBe(free);
  const log = await events(key, id);
  expect(once.map((fragment) => count(log, fragment))).toEqual(once.map(() => 1));
  // One charge row, or two when the ten minutes crossed a clock hour; together exactly ten minutes.
  const rows = await charges(key, id);
  expect(rows.length).toBeLessThanOrEqual(2);
  expect(rows.reduce((sum, amount) => sum + amount, 0)).toBe(-TEN_MINUTES_MICROS);
  const audit = await expectLedgerBalanced(accountId);
  expect(audit.balance_micros).toBe(10_000_000 - TEN_MINUTES_MICROS);
}
const freeGpus = async (key: string) =>
  (await callJson<{ gpus: { model: string; free_gpus: number }[] }>("GET", "/v1/gpus", { key })).body.gpus.find((g) => g.model === "h100-80gb")!.free_gpus;
const charges = async (key: string, id: string) =>
  (await callJson<{ items: { kind: string; instance_id: string | null; amount_micros: number }[] }>("GET", "/v1/billing/ledger?limit=200", { key })).body.items
    .filter((entry) => entry.kind === "charge" && entry.instance_id === id)
    .map((entry) => entry.amount_micros);

/** An account's instance, running ten minutes, and its GPU model's free count before it launched. */
interface Running {
  accountId: string;
  key: string;
  id: string;
  free: number;
}

/** A fresh account's instance, running for exactly ten minutes of the frozen clock. */
async function runningTenMinutes(): Promise<Running> {
  const account = await newAccount(10_000_000);
  const free = await freeGpus(account.key);
  const id = await runningOn(agent, account.key, { gpu_model: "h100-80gb" });
  await until(() => freeGpus(account.key), (n) => n === free - 1, "its GPU taken");
  advanceClock(TEN_MINUTES);
  return { accountId: account.id, key: account.key, id, free };
}

describe("an object reset in the middle of a change", () => {
  it("an AccountDO reset while its stop waits for the MachineDO: the stop happens once (one stop command, GPU freed once, one event, one charge)", async () => {
    const { accountId, key, id, free } = await runningTenMinutes();
    const held = await holdDirective(id, "before applying");
    const stopping = callJson("POST", `/v1/instances/${id}/stop`, { key });
    await held.arrived();
    await abort(env.ACCOUNTS.getByName(accountId));
    // The caller learns nothing certain: the generic 500, to retry.
    expect(await stopping).toMatchObject({ status: 500, body: { error: "internal" } });
    // The MachineDO goes on with the call it got; the restarted AccountDO never saw its answer, so
    // its alarm (armed with the change) delivers the stop again, and the MachineDO ignores the repeat.
    held.release();
    await agent.waitForCommand(id, "stop");
    held.restore();
    expect(await runDurableObjectAlarm(env.ACCOUNTS.getByName(accountId))).toBe(true);
    const pending = await runInDurableObject(env.ACCOUNTS.getByName(accountId), (_o, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM outbox").one().n);
    expect(pending).toBe(0);

    agent.report(id, "stopped");
    await until(() => events(key, id), (log) => log.some((m) => m.startsWith("Container stopped")), "the host's stop");
    expect((await callJson("POST", `/v1/instances/${id}/stop`, { key })).body).toEqual({ error: "conflict", message: "cannot stop an instance whose status is stopped" });
    expect(agent.commands(id).map((c) => c.op)).toEqual(["create", "stop"]);
    await expectDoneOnce({ accountId, key, id, free }, ["Stop requested", "Container stopped"]);
  });

  it("an AccountDO reset before its destroy reached the MachineDO: the alarm armed with the change delivers it, once", async () => {
    const { accountId, key, id, free } = await runningTenMinutes();
    expect((await call("POST", `/v1/instances/${id}/stop`, { key })).status).toBe(204);
    agent.report(id, "stopped");
    await until(() => events(key, id), (log) => log.some((m) => m.startsWith("Container stopped")), "the host's stop");
    // A stopped instance accrues nothing and has nothing queued: its AccountDO's alarm waits for the audit log's pruning alone, days away.
    expect(await alarmAt(accountId)).toBeGreaterThan(Date.now() + DAY_MS);

    const held = await holdDirective(id, "before applying");
    const destroying = callJson("DELETE", `/v1/instances/${id}`, { key });
    await held.arrived();
    await abort(env.ACCOUNTS.getByName(accountId));
    expect(await destroying).toMatchObject({ status: 500, body: { error: "internal" } });
    // The held call is lost with its caller: the MachineDO never applies it.
    held.restore();
    expect(agent.commands(id).map((c) => c.op)).toEqual(["create", "stop"]);
    expect(await alarmAt(accountId)).toBeLessThan(Date.now() + DAY_MS);
    expect(await runDurableObjectAlarm(env.ACCOUNTS.getByName(accountId))).toBe(true);
    await agent.waitForCommand(id, "destroy");
    held.release();
    agent.report(id, "destroyed");
    await until(() => events(key, id), (log) => log.some((m) => m.includes("removed from the host")), "the host's removal");
    expect(agent.commands(id).map((c) => c.op)).toEqual(["create", "stop", "destroy"]);
    await expectDoneOnce({ accountId, key, id, free }, ["Destroyed", "removed from the host"]);
  });

  it("a MachineDO reset after applying a destroy but before answering: the retry is a repeat it ignores; the container is removed once", async () => {
    const { accountId, key, id, free } = await runningTenMinutes();
    const held = await holdDirective(id, "after applying");
    const destroying = call("DELETE", `/v1/instances/${id}`, { key });
    await held.arrived();
    await agent.waitForCommand(id, "destroy");
    await abort(env.MACHINES.getByName(String(agent.machineId)));
    held.restore();
    held.release();
    // The AccountDO's immediate retries reach the restarted MachineDO, which has the destroy already.
    expect((await destroying).status).toBe(204);
    // The reset dropped the agent's socket: the host removed the container, but its report went
    // nowhere. It reconnects, as the agent does, without the container; the MachineDO, reconciling,
    // asks for the destroy again (idempotent), and the report of this one arrives.
    agent.disconnect();
    await agent.connect(Array(4).fill("h100-80gb"));
    await agent.waitForCommand(id, "destroy");
    agent.report(id, "destroyed");
    await until(() => events(key, id), (log) => log.some((m) => m.includes("removed from the host")), "the host's removal");
    await expectDoneOnce({ accountId, key, id, free }, ["Destroyed", "removed from the host"]);
    await agent.leave();
  });
});
