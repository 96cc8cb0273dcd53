// The ledger a person can read: one charge row per instance per clock hour, grown by each settlement
// in the hour and closed at the hour's end or a stop; reads write nothing. On a frozen clock.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { callJson, GPU_MODELS, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";
import { expectLedgerBalanced } from "../../../test/support/workerd/ledger-audit.ts";
import { until } from "../../../test/support/workerd/poll.ts";
import { advanceClock, freezeClockInEachTest } from "../../../test/support/workerd/test-clock.ts";
import { clock } from "../../../core/clock.ts";

interface Entry {
  id: number;
  created_at: string;
  kind: string;
  amount_micros: number;
  balance_after_micros: number;
  instance_id: string | null;
  note: string;
  pending: boolean;
}

const HOUR = 3_600_000;
const PRICE = GPU_MODELS.rtx4090.price_hour_micros;
const OPENING = 100_000_000;
let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("hourly-host", Array(8).fill("rtx4090"));
});
freezeClockInEachTest();

const ledger = async (key: string) => (await callJson<{ items: Entry[] }>("GET", "/v1/billing/ledger?limit=200", { key })).body.items;
const balance = async (key: string) => (await callJson("GET", "/v1/me", { key })).body.balance_micros as number;
const ring = (accountId: string) => runDurableObjectAlarm(env.ACCOUNTS.getByName(accountId));
const stored = (accountId: string) =>
  runInDurableObject(env.ACCOUNTS.getByName(accountId), (_, state) => ({
    ledger: state.storage.sql.exec("SELECT * FROM ledger ORDER BY seq").toArray(),
    billedFrom: Object.fromEntries(state.storage.sql.exec<{ id: string; b: number }>("SELECT id, billed_until_ms AS b FROM instances").toArray().map((r) => [r.id, r.b])),
  }));
const clockTime = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const nextHour = () => clock.now() - (clock.now() % HOUR) + HOUR;
/** Moves the frozen clock to `atMs`. */
const moveTo = (atMs: number) => advanceClock(atMs - clock.now());

describe("hourly charge rows", () => {
  it("two instances across an hour boundary, read every second: one closed row each for the first hour, one open row each for the second, a pending entry, nothing else", async () => {
    const account = await newAccount(OPENING);
    // Both start in the hour that ends at hourEnd, at least a minute before its end: the clock froze
    // at the real time, so within two minutes of an hour's end the case starts in the next hour.
    if (HOUR - (clock.now() % HOUR) < 120_000) moveTo(nextHour());
    const hourEnd = nextHour();
    const a = await runningOn(agent, account.key);
    const b = await runningOn(agent, account.key);
    const { billedFrom } = await stored(account.id);

    moveTo(hourEnd - 30_000);
    await ring(account.id);
    const settledBefore = (await stored(account.id)).ledger;
    for (let second = 0; second < 60; second++) {
      advanceClock(1_000);
      const items = await ledger(account.key);
      expect(items[0]).toMatchObject({ pending: true, kind: "charge", instance_id: null, balance_after_micros: await balance(account.key) });
      if (second < 29) expect((await stored(account.id)).ledger, "a read writes nothing").toEqual(settledBefore);
      if (second === 44) await ring(account.id);
    }
    advanceClock(1_000);
    const items = await ledger(account.key);
    expect(items.map((e) => [e.kind, e.instance_id, e.pending])).toEqual([
      ["charge", null, true],
      ["charge", b, false], ["charge", a, false],
      ["charge", b, false], ["charge", a, false],
      ["credit", null, false],
    ]);
    const [pending, openB, openA, closedB, closedA] = items as [Entry, Entry, Entry, Entry, Entry];
    for (const [closed, open, id] of [[closedA, openA, a], [closedB, openB, b]] as const) {
      const from = billedFrom[id]!;
      const firstHour = Math.floor((PRICE * (hourEnd - from)) / HOUR);
      expect(closed.amount_micros).toBe(-firstHour);
      expect(closed.note).toBe(`${clockTime(from)}–${clockTime(hourEnd)} UTC, 1 × rtx4090`);
      expect(closed.created_at).toBe(new Date(from).toISOString());
      // The open row covers 15 s settled by the alarm; carry from the first hour makes it exact.
      const secondHour = Math.floor((PRICE * (hourEnd + 15_000 - from)) / HOUR) - firstHour;
      expect(open.amount_micros).toBe(-secondHour);
      expect(open.note).toBe(`${clockTime(hourEnd)}–${clockTime(hourEnd + 15_000)} UTC, 1 × rtx4090`);
    }
    // The rows sum exactly to the balance change; with the pending entry, to the balance shown now.
    const storedSum = [openA, openB, closedA, closedB].reduce((sum, e) => sum + e.amount_micros, 0);
    expect(storedSum).toBe((await expectLedgerBalanced(account.id)).balance_micros - OPENING);
    expect(storedSum + pending.amount_micros).toBe((await balance(account.key)) - OPENING);
    const accruedSince15s = (from: number) => Math.floor((PRICE * (hourEnd + 31_000 - from)) / HOUR) - Math.floor((PRICE * (hourEnd + 15_000 - from)) / HOUR);
    expect(pending.amount_micros).toBe(-(accruedSince15s(billedFrom[a]!) + accruedSince15s(billedFrom[b]!)));

    // Usage by instance is exactly each instance's rows; by day, the rows of each day.
    const usage = (group: string) => callJson<{ items: { day: string | null; instance_id: string; amount_micros: number }[]; total_micros: number }>(
      "GET", `/v1/billing/usage?from=${new Date(hourEnd - HOUR).toISOString().slice(0, 10)}&to=${new Date(hourEnd).toISOString().slice(0, 10)}&group=${group}`, { key: account.key });
    const byInstance = (await usage("instance")).body;
    expect(Object.fromEntries(byInstance.items.map((i) => [i.instance_id, i.amount_micros]))).toEqual({
      [a]: -(closedA.amount_micros + openA.amount_micros), [b]: -(closedB.amount_micros + openB.amount_micros),
    });
    const byDay = (await usage("day")).body;
    for (const item of byDay.items) {
      const rows = [closedA, openA, closedB, openB].filter((e) => e.instance_id === item.instance_id && e.created_at.startsWith(item.day!));
      expect(item.amount_micros).toBe(-rows.reduce((sum, e) => sum + e.amount_micros, 0));
    }
    expect(byDay.total_micros).toBe(-storedSum);

    // Later settlements grow the open rows in place; a closed row never changes.
    advanceClock(10 * 60_000);
    await ring(account.id);
    const later = await ledger(account.key);
    expect(later.slice(1).map((e) => e.id)).toEqual(items.slice(1).map((e) => e.id));
    expect(later[3]).toEqual(closedB);
    expect(later[4]).toEqual(closedA);
    expect(later[2]!.amount_micros).toBeLessThan(openA.amount_micros);
    expect(later[2]!.note).toBe(`${clockTime(hourEnd)}–${clockTime(hourEnd + 31_000 + 10 * 60_000)} UTC, 1 × rtx4090`);
    for (const id of [a, b]) await callJson("DELETE", `/v1/instances/${id}`, { key: account.key });
  });

  it("a stop closes the hour's row; a start in the same hour opens a new one", async () => {
    moveTo(nextHour() + 60_000);
    const account = await newAccount(OPENING);
    const id = await runningOn(agent, account.key);
    advanceClock(5 * 60_000);
    expect((await callJson("POST", `/v1/instances/${id}/stop`, { key: account.key })).status).toBe(204);
    await agent.waitForCommand(id, "stop");
    agent.report(id, "stopped");
    await until(() => callJson<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`, { key: account.key }),
      (r) => r.body.items.some((e) => e.message.includes("Container stopped")), "the stop to be reported");
    const afterStop = (await ledger(account.key)).filter((e) => e.kind === "charge");
    expect(afterStop).toHaveLength(1);
    expect(afterStop[0]!.pending).toBe(false);

    advanceClock(60_000);
    expect((await callJson("POST", `/v1/instances/${id}/start`, { key: account.key })).status).toBe(204);
    await agent.waitForCommand(id, "start");
    agent.report(id, "running");
    await until(() => callJson<{ status: string }>("GET", `/v1/instances/${id}`, { key: account.key }), (r) => r.body.status === "running", "running");
    advanceClock(60_000);
    await ring(account.id);
    const charges = (await ledger(account.key)).filter((e) => e.kind === "charge" && !e.pending);
    expect(charges).toHaveLength(2);
    expect(charges[1]).toEqual(afterStop[0]);
    expect(charges[0]!.id).toBeGreaterThan(afterStop[0]!.id);
    await callJson("DELETE", `/v1/instances/${id}`, { key: account.key });
    await expectLedgerBalanced(account.id);
  });

  it("three hours settled at once still make one row per clock hour, the hours between at exactly the price", async () => {
    moveTo(nextHour() + 10 * 60_000);
    const account = await newAccount(OPENING);
    const id = await runningOn(agent, account.key);
    const from = (await stored(account.id)).billedFrom[id]!;
    advanceClock(3 * HOUR);
    await ring(account.id);
    const charges = (await ledger(account.key)).filter((e) => e.kind === "charge" && !e.pending);
    expect(charges).toHaveLength(4);
    expect(charges.reduce((sum, e) => sum + e.amount_micros, 0)).toBe(-Math.floor((PRICE * 3 * HOUR) / HOUR));
    // The whole hours in between cost exactly the hourly price: the remainder carries, it never rounds twice.
    expect(charges.slice(1, 3).map((e) => e.amount_micros)).toEqual([-PRICE, -PRICE]);
    expect(charges.at(-1)!.created_at).toBe(new Date(from).toISOString());
    await callJson("DELETE", `/v1/instances/${id}`, { key: account.key });
  });
});
