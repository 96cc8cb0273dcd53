// GET /v1/billing/usage: the hourly charge rows summed by day and instance, or by instance; whole UTC
// days, at most 93 per request. On a frozen clock across midnight.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { clock } from "../../../core/clock.ts";
import { callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";
import { advanceClock, freezeClockInEachTest } from "../../../test/support/workerd/test-clock.ts";
import type { z } from "@hono/zod-openapi";
import type { UsageReport } from "../schemas/usage.ts";

type Report = z.infer<typeof UsageReport>;
interface Entry {
  kind: string;
  instance_id: string | null;
  amount_micros: number;
  created_at: string;
  pending: boolean;
}

const DAY = 86_400_000;
const MINUTE = 60_000;
let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("usage-host", Array(8).fill("rtx4090"));
});
freezeClockInEachTest();

const usage = (key: string, query = "") => callJson<Report>("GET", `/v1/billing/usage${query}`, { key });
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe("GET /v1/billing/usage", () => {
  it("sums the charge rows by day and instance, and by instance, exactly as the ledger holds them", async () => {
    const midnight = clock.now() - (clock.now() % DAY) + DAY;
    advanceClock(midnight - 30 * MINUTE - clock.now());
    const { id, key } = await newAccount(100_000_000);
    const a = await runningOn(agent, key, { label: "trainer" });
    const b = await runningOn(agent, key, { gpu_count: 2, label: "server" });
    advanceClock(60 * MINUTE);
    expect((await callJson("POST", `/v1/instances/${b}/stop`, { key })).status).toBe(204);
    advanceClock(30 * MINUTE);
    await runDurableObjectAlarm(env.ACCOUNTS.getByName(id));

    const [first, second] = [dayOf(midnight - 1), dayOf(midnight)];
    const byDay = await usage(key, `?from=${first}&to=${second}`);
    expect(byDay.status).toBe(200);
    expect(byDay.body.items.map(({ day, instance_id, label, gpu_count, seconds }) => ({ day, instance_id, label, gpu_count, seconds }))).toEqual([
      { day: first, instance_id: b, label: "server", gpu_count: 2, seconds: 30 * 60 },
      { day: first, instance_id: a, label: "trainer", gpu_count: 1, seconds: 30 * 60 },
      { day: second, instance_id: b, label: "server", gpu_count: 2, seconds: 30 * 60 },
      { day: second, instance_id: a, label: "trainer", gpu_count: 1, seconds: 60 * 60 },
    ]);

    // Each item is the sum of that day's charge rows of that instance; the total, of every charge.
    const ledger = (await callJson<{ items: Entry[] }>("GET", "/v1/billing/ledger?limit=200", { key })).body.items.filter((e) => e.kind === "charge" && !e.pending);
    for (const item of byDay.body.items) {
      const rows = ledger.filter((e) => e.instance_id === item.instance_id && e.created_at.startsWith(item.day!));
      expect(item.amount_micros).toBe(-rows.reduce((sum, e) => sum + e.amount_micros, 0));
    }
    const charged = -ledger.reduce((sum, e) => sum + e.amount_micros, 0);
    expect(byDay.body.total_micros).toBe(charged);

    const byInstance = await usage(key, `?from=${first}&to=${second}&group=instance`);
    expect(byInstance.body.items.map(({ day, instance_id, seconds }) => ({ day, instance_id, seconds }))).toEqual([
      { day: null, instance_id: b, seconds: 60 * 60 },
      { day: null, instance_id: a, seconds: 90 * 60 },
    ]);
    expect(byInstance.body.items.map((i) => i.amount_micros)).toEqual([b, a].map((instance) =>
      byDay.body.items.filter((i) => i.instance_id === instance).reduce((sum, i) => sum + i.amount_micros, 0)));
    expect(byInstance.body.total_micros).toBe(charged);

    // Days outside the range are left out; the default range is this month up to today.
    expect((await usage(key, `?from=${second}&to=${second}`)).body.items.map((i) => i.day)).toEqual([second, second]);
    const sameMonth = first.slice(0, 7) === second.slice(0, 7);
    expect((await usage(key)).body.items.map((i) => i.day)).toEqual(sameMonth ? [first, first, second, second] : [second, second]);
    await callJson("DELETE", `/v1/instances/${a}`, { key });
  });

  it("another account's usage is never counted", async () => {
    const other = await newAccount(100_000_000);
    const instance = await runningOn(agent, other.key);
    advanceClock(10 * MINUTE);
    await callJson("DELETE", `/v1/instances/${instance}`, { key: other.key });
    const mine = await newAccount(100_000_000);
    expect((await usage(mine.key)).body).toEqual({ items: [], storage: [], total_micros: 0 });
  });

  it.each([
    ["?from=2026-13-01", "from: must be a date YYYY-MM-DD"],
    ["?from=2026-02-30", "from: must be a date YYYY-MM-DD"],
    ["?to=yesterday", "to: must be a date YYYY-MM-DD"],
    ["?from=2026-11-02&to=2026-11-01", "to: must not be before from"],
    ["?from=2026-01-01&to=2026-04-04", "to: must be at most 93 days from from (inclusive)"],
    ["?group=week", "group: must be one of day, instance"],
  ])("%s is 400 invalid naming the field", async (query, message) => {
    const { key } = await newAccount();
    const { status, body } = await usage(key, query);
    expect(status).toBe(400);
    expect(body).toEqual({ error: "invalid", message });
  });

  it("93 days is the most one request sums; without a credential it is 401", async () => {
    const { key } = await newAccount();
    expect((await usage(key, "?from=2026-01-01&to=2026-04-03")).status).toBe(200);
    expect((await callJson("GET", "/v1/billing/usage")).status).toBe(401);
  });
});
