import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";
import { auditLedger } from "../../../test/support/workerd/ledger-audit.ts";
import { asBrowser, signUp } from "../../../test/support/workerd/session-client.ts";
import { advanceClock, freezeClock, resumeClock, withFrozenClock } from "../../../test/support/workerd/test-clock.ts";

interface Entry {
  id: number;
  created_at: string;
  kind: "credit" | "debit" | "charge";
  pending: boolean;
  amount_micros: number;
  balance_after_micros: number;
  instance_id: string | null;
  note: string;
}
type Page = { items: Entry[]; next_cursor: string | null };

const MINUTE = 60_000;
let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("ledger-host", Array(8).fill("rtx4090"));
});

const page = (key: string, query = "") => callJson<Page>("GET", `/v1/billing/ledger${query}`, { key });

async function allPages(key: string, limit: number, between: () => Promise<void> = async () => undefined): Promise<Entry[][]> {
  const pages: Entry[][] = [];
  let cursor: string | null = null;
  do {
    const { status, body } = await page(key, `?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(status).toBe(200);
    pages.push(body.items);
    cursor = body.next_cursor;
    await between();
  } while (cursor !== null);
  return pages;
}

const storedLedgerIds = (accountId: string) =>
  runInDurableObject(env.ACCOUNTS.getByName(accountId), (_, state) =>
    state.storage.sql.exec<{ seq: number }>("SELECT seq FROM ledger ORDER BY seq DESC").toArray().map((r) => r.seq));

describe("GET /v1/billing/ledger", () => {
  it("lists credits and debits newest first, each with the balance after it", async () => {
    const { id, key } = await newAccount(5_000_000);
    await admin("POST", `/accounts/${id}/credits`, { amount_micros: 2_500_000, note: "promo" });
    await admin("POST", `/accounts/${id}/credits`, { amount_micros: -500_000, note: "refund" });
    const { status, body } = await page(key);
    expect(status).toBe(200);
    expect(body.next_cursor).toBeNull();
    expect(body.items.map(({ kind, amount_micros, balance_after_micros, instance_id, note, pending }) => ({ kind, amount_micros, balance_after_micros, instance_id, note, pending }))).toEqual([
      { kind: "debit", amount_micros: -500_000, balance_after_micros: 7_000_000, instance_id: null, note: "refund", pending: false },
      { kind: "credit", amount_micros: 2_500_000, balance_after_micros: 7_500_000, instance_id: null, note: "promo", pending: false },
      { kind: "credit", amount_micros: 5_000_000, balance_after_micros: 5_000_000, instance_id: null, note: "opening balance", pending: false },
    ]);
    expect(body.items[0]!.id).toBeGreaterThan(body.items[1]!.id);
  });

  it("pages never repeat or skip an entry while charges are written between reads; the ledger sums to the balance", async () => {
    const { id, key } = await newAccount(50_000_000);
    for (let i = 0; i < 6; i++) await admin("POST", `/accounts/${id}/credits`, { amount_micros: 1_000 + i, note: `credit ${i}` });
    const instances = [await runningOn(agent, key), await runningOn(agent, key)];
    freezeClock();
    try {
      advanceClock(MINUTE);
      await runDurableObjectAlarm(env.ACCOUNTS.getByName(id));
      advanceClock(MINUTE / 2);
      const first = await page(key, "?limit=3");
      // The read wrote nothing: it leads with what accrued since the alarm's settlement, not stored.
      const [pending, ...stored] = first.body.items;
      expect(pending).toMatchObject({ kind: "charge", pending: true, instance_id: null });
      expect(pending!.id).toBe(Math.max(...(await storedLedgerIds(id))) + 1);
      expect(pending!.balance_after_micros).toBe((await callJson("GET", "/v1/me", { key })).body.balance_micros);
      // The alarm settled both instances at one instant: one charge row each, naming its instance.
      expect(stored.map((e) => [e.kind, e.pending])).toEqual([["charge", false], ["charge", false]]);
      expect(stored.map((e) => e.instance_id).sort()).toEqual([...instances].sort());
      expect(stored.every((e) => e.amount_micros < 0 && e.note.endsWith("UTC, 1 × rtx4090"))).toBe(true);
      const newestAtStart = stored[0]!.id;

      const seen: Entry[] = [...stored];
      let cursor = first.body.next_cursor;
      let round = 0;
      while (cursor !== null) {
        // Between two reads: more time is billed (a settlement grows this hour's rows) and a credit lands.
        advanceClock(MINUTE);
        await admin("POST", `/accounts/${id}/credits`, { amount_micros: 7, note: `meanwhile ${round++}` });
        const next = await page(key, `?limit=3&cursor=${cursor}`);
        expect(next.status).toBe(200);
        expect(next.body.items.some((e) => e.pending)).toBe(false);
        seen.push(...next.body.items);
        cursor = next.body.next_cursor;
      }
      const ids = seen.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(ids).toEqual((await storedLedgerIds(id)).filter((seq) => seq <= newestAtStart));
      expect(round).toBeGreaterThanOrEqual(3);

      // Every entry, the pending one too, sums to the balance a read shows.
      const everything = (await allPages(key, 200)).flat();
      const balance = (await callJson("GET", "/v1/me", { key })).body.balance_micros as number;
      expect(everything.reduce((sum, e) => sum + e.amount_micros, 0)).toBe(balance);
      expect(everything[0]!.balance_after_micros).toBe(balance);
      const audit = await auditLedger(id);
      expect(audit.ledger_sum_micros).toBe(audit.balance_micros);
      for (const instance of instances) await callJson("DELETE", `/v1/instances/${instance}`, { key });
    } finally {
      resumeClock();
    }
  });

  it("limit counts the pending entry: limit=1 is that entry alone, and its cursor leads to every stored one", async () => {
    const { id, key } = await newAccount(50_000_000);
    const instance = await runningOn(agent, key);
    await withFrozenClock(async () => {
      advanceClock(MINUTE);
      const first = await page(key, "?limit=1");
      expect(first.body.items).toEqual([expect.objectContaining({ pending: true, instance_id: instance, note: expect.stringMatching(/^since \d\d:\d\d UTC, not yet settled: 1 × rtx4090$/) })]);
      expect(first.body.next_cursor).toBe(String(first.body.items[0]!.id));
      const rest = await page(key, `?limit=200&cursor=${first.body.next_cursor}`);
      expect(rest.body.items.map((e) => e.id)).toEqual(await storedLedgerIds(id));
      await callJson("DELETE", `/v1/instances/${instance}`, { key });
    });
    // Stopped: nothing accrues, so no pending entry.
    expect((await page(key)).body.items.some((e) => e.pending)).toBe(false);
  });

  it("returns 50 entries by default and at most `limit`, up to 200", async () => {
    const { id, key } = await newAccount(1);
    for (let i = 0; i < 60; i++) await admin("POST", `/accounts/${id}/credits`, { amount_micros: 1 });
    expect((await page(key)).body.items).toHaveLength(50);
    expect((await page(key, "?limit=1")).body.items).toHaveLength(1);
    const max = await page(key, "?limit=200");
    expect(max.body.items).toHaveLength(61);
    expect(max.body.next_cursor).toBeNull();
    const pages = await allPages(key, 20);
    expect(pages.map((p) => p.length)).toEqual([20, 20, 20, 1]);
  });

  it.each([["0"], ["201"], ["abc"], ["1.5"], ["-1"], [""]])("limit=%s is 400 invalid naming limit", async (limit) => {
    const { key } = await newAccount();
    const { status, body } = await callJson("GET", `/v1/billing/ledger?limit=${limit}`, { key });
    expect(status).toBe(400);
    expect(body).toEqual({ error: "invalid", message: "limit: must be an integer from 1 to 200" });
  });

  it.each([["abc"], ["0"], ["-3"], ["12345678901234567"]])("cursor=%s is 400 invalid naming cursor", async (cursor) => {
    const { key } = await newAccount();
    const { status, body } = await callJson("GET", `/v1/billing/ledger?cursor=${cursor}`, { key });
    expect(status).toBe(400);
    expect(body).toEqual({ error: "invalid", message: "cursor: must be the next_cursor of a previous page" });
  });

  it("a signed-in browser reads its ledger; without a credential it is 401", async () => {
    const { session } = await signUp();
    expect((await asBrowser("GET", "/v1/billing/ledger", session)).body).toEqual({ items: [], next_cursor: null });
    expect((await callJson("GET", "/v1/billing/ledger")).status).toBe(401);
  });
});
