// Volumes' storage in the ledger, on a frozen clock: one `storage` row per volume and clock hour,
// exact to the micro-dollar across hours and size changes within one (the remainder carried), a
// pending entry on reads between settlements, the usage report's storage apart from instances, and
// the price on /pricing.json and on the volume.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { clock } from "../../../core/clock.ts";
import { call, callJson, newAccount, keyCredential } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";
import { keepBytes } from "../../../test/support/workerd/kept-bytes.ts";
import { expectLedgerBalanced } from "../../../test/support/workerd/ledger-audit.ts";
import { advanceClock, freezeClockInEachTest } from "../../../test/support/workerd/test-clock.ts";
import { storeSave } from "../../../test/support/workerd/volume-content.ts";
import type { LedgerEntry } from "../money/ledger-page.ts";

interface Volume { id: string; stored_bytes: number; price_month_micros: number }

const HOUR = 3_600_000;
const MINUTE = 60_000;
const PRICE = 70_000n;
/** A micro-dollar in byte-milliseconds at a price per GB-month of 730 hours: what the test computes the charges by. */
const PER_MICRO = 1_000_000_000n * 730n * BigInt(HOUR);
const OPENING = 100_000_000;
let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("storage-charges-host", ["rtx4090"]);
});
freezeClockInEachTest();

const moveTo = (atMs: number) => advanceClock(atMs - clock.now());
const nextHour = () => clock.now() - (clock.now() % HOUR) + HOUR;
const clockTime = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const ledger = async (key: string) => (await callJson<{ items: LedgerEntry[] }>("GET", "/v1/billing/ledger?limit=200", { key })).body.items;
const balance = async (key: string) => (await callJson<{ balance_micros: number }>("GET", "/v1/me", { key })).body.balance_micros;

/** What a volume's sizes from `since` cost up to `untilMs`, all time together rounded down once: the carry makes every settlement land on it. */
function costUntil(sizes: Array<{ fromMs: number; bytes: number }>, untilMs: number): number {
  let total = 0n;
  sizes.forEach(({ fromMs, bytes }, i) => {
    const endMs = Math.min(untilMs, sizes[i + 1]?.fromMs ?? untilMs);
    if (endMs > fromMs) total += BigInt(bytes) * PRICE * BigInt(endMs - fromMs);
  });
  return Number(total / PER_MICRO);
}

describe("storage charges", () => {
  it("charge a volume's stored bytes hourly to the micro-dollar, across hours and size changes within one, with a pending entry between settlements", async () => {
    const { id: accountId, key } = await newAccount(OPENING);
    const account = env.ACCOUNTS.getByName(accountId);
    const h1 = nextHour() + HOUR;
    moveTo(h1 - HOUR + 20 * MINUTE + 7_003);
    const created = await callJson<Volume>("POST", "/v1/volumes", { key, body: { name: "data", size_gb: 10 } });
    const volumeId = created.body.id;
    const stored = async () => (await callJson<Volume>("GET", "/v1/volumes/data", { key })).body.stored_bytes;
    const sizes = [{ fromMs: clock.now(), bytes: 0 }];
    const sizeNow = async () => sizes.push({ fromMs: clock.now(), bytes: await stored() });

    await keepBytes(accountId, volumeId, 1_000_000_001, "version");
    const first = await keepBytes(accountId, volumeId, 3_000_000_007);
    await keepBytes(accountId, volumeId, 1_500_000_003);
    await sizeNow();
    expect(sizes.at(-1)!.bytes).toBe(5_500_000_011);
    const t0 = clock.now();

    moveTo(h1);
    await runDurableObjectAlarm(account);
    // Mid-hour, a save replaces the gigabyte of version 1 with a kilobyte, then a snapshot's deletion
    // frees 3 GB more: each size is charged for its own time.
    moveTo(h1 + 25 * MINUTE);
    const save = await storeSave(accountId, volumeId, { "notes.txt": "x".repeat(1_000) });
    expect(await account.commitVolumeFiles(keyCredential(key), { volume_id: volumeId, instance_id: null, base_version: 1, manifest: save.manifest, bytes_sent: 1_000 })).toMatchObject({ ok: true, version: 2 });
    await sizeNow();
    moveTo(h1 + 50 * MINUTE + 9);
    expect((await call("DELETE", `/v1/volumes/data/snapshots/${first}`, { key })).status).toBe(204);
    await sizeNow();
    expect(sizes.map((s) => s.bytes)).toEqual([0, 5_500_000_011, 4_500_001_010, 1_500_001_003]);
    const settledMs = clock.now();

    // Read between settlements: what accrued since leads the first page, and the balance counts it; nothing is written.
    const h2 = h1 + HOUR;
    moveTo(h2 + 30 * MINUTE + 11);
    const read = await ledger(key);
    expect(read[0]).toEqual({
      id: expect.any(Number), created_at: new Date(clock.now()).toISOString(), kind: "storage", pending: true,
      amount_micros: -(costUntil(sizes, clock.now()) - costUntil(sizes, settledMs)), balance_after_micros: OPENING - costUntil(sizes, clock.now()),
      instance_id: null, volume_id: volumeId, note: `since ${clockTime(settledMs)} UTC, not yet settled: volume data`,
    });
    expect(await balance(key)).toBe(OPENING - costUntil(sizes, clock.now()));
    expect((await ledger(key)).slice(1)).toEqual(read.slice(1));

    await runDurableObjectAlarm(account);
    const rows = (await ledger(key)).filter((entry) => entry.kind === "storage");
    expect(rows.map(({ pending, volume_id, instance_id }) => ({ pending, volume_id, instance_id }))).toEqual(Array(3).fill({ pending: false, volume_id: volumeId, instance_id: null }));
    const [third, second, firstHour] = rows as [LedgerEntry, LedgerEntry, LedgerEntry];
    expect(firstHour).toMatchObject({ created_at: new Date(sizes[0]!.fromMs).toISOString(), amount_micros: -costUntil(sizes, h1), note: `${clockTime(t0)}–${clockTime(h1)} UTC, volume data: 5.5 GB` });
    expect(second).toMatchObject({ created_at: new Date(h1).toISOString(), amount_micros: -(costUntil(sizes, h2) - costUntil(sizes, h1)), note: `${clockTime(h1)}–${clockTime(h2)} UTC, volume data: 1.5 GB` });
    expect(third).toMatchObject({ created_at: new Date(h2).toISOString(), amount_micros: -(costUntil(sizes, clock.now()) - costUntil(sizes, h2)) });
    expect(third.balance_after_micros).toBe(OPENING - costUntil(sizes, clock.now()));
    // 5.5 GB for 40 minutes is 351 micro-dollars and a fraction: the fractions of every span are carried, never dropped.
    expect(-(firstHour.amount_micros + second.amount_micros + third.amount_micros)).toBe(costUntil(sizes, clock.now()));
    await expectLedgerBalanced(accountId);
  });

  it("lead the first page with the instances' pending entry and then the storage's, and pages of one entry each walk the same list", async () => {
    const { id: accountId, key } = await newAccount(OPENING);
    const created = await callJson<Volume>("POST", "/v1/volumes", { key, body: { name: "paged", size_gb: 10 } });
    await keepBytes(accountId, created.body.id, 5_000_000_000);
    const instance = await runningOn(agent, key);
    advanceClock(20 * MINUTE);
    const all = await ledger(key);
    expect(all.map(({ kind, pending, instance_id, volume_id }) => ({ kind, pending, instance_id, volume_id }))).toEqual([
      { kind: "charge", pending: true, instance_id: instance, volume_id: null },
      { kind: "storage", pending: true, instance_id: null, volume_id: created.body.id },
      { kind: "credit", pending: false, instance_id: null, volume_id: null },
    ]);
    expect(all[0]!.balance_after_micros).toBe(await balance(key));
    expect(all[0]!.balance_after_micros - all[0]!.amount_micros).toBe(all[1]!.balance_after_micros);
    expect(all[1]!.id).toBe(all[2]!.id + 1);
    expect(all[0]!.id).toBe(all[1]!.id + 1);

    const walked: LedgerEntry[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: LedgerEntry[]; next_cursor: string | null } =
        (await callJson<{ items: LedgerEntry[]; next_cursor: string | null }>("GET", `/v1/billing/ledger?limit=1${cursor ? `&cursor=${cursor}` : ""}`, { key })).body;
      walked.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(walked).toEqual(all);
    await callJson("DELETE", `/v1/instances/${instance}`, { key });
  });

  it("show storage apart from instances in the usage report, by day and volume or by volume, and in total", async () => {
    const { id: accountId, key } = await newAccount(OPENING);
    const account = env.ACCOUNTS.getByName(accountId);
    const soon = clock.now() + 90 * MINUTE;
    const midnight = soon - (soon % (24 * HOUR)) + 24 * HOUR;
    moveTo(midnight - 90 * MINUTE);
    const a = await callJson<Volume>("POST", "/v1/volumes", { key, body: { name: "alpha", size_gb: 100 } });
    const b = await callJson<Volume>("POST", "/v1/volumes", { key, body: { name: "beta", size_gb: 100 } });
    await keepBytes(accountId, a.body.id, 20_000_000_000);
    await keepBytes(accountId, b.body.id, 7_000_000_000);
    for (let hour = 1; hour <= 3; hour++) {
      advanceClock(HOUR);
      await runDurableObjectAlarm(account);
    }
    const rows = (await ledger(key)).filter((entry) => entry.kind === "storage" && !entry.pending);
    const sum = (volumeId: string, day?: string) =>
      -rows.filter((r) => r.volume_id === volumeId && (day === undefined || r.created_at.startsWith(day))).reduce((total, r) => total + r.amount_micros, 0);
    const [before, after] = [new Date(midnight - 1), new Date(midnight)].map((d) => d.toISOString().slice(0, 10)) as [string, string];

    const byDay = await callJson<{ items: unknown[]; storage: unknown[]; total_micros: number }>("GET", `/v1/billing/usage?from=${before}&to=${after}`, { key });
    expect(byDay.status).toBe(200);
    expect(byDay.body.items).toEqual([]);
    expect(byDay.body.storage).toEqual([
      { day: before, volume_id: a.body.id, name: "alpha", seconds: 90 * 60, amount_micros: sum(a.body.id, before) },
      { day: before, volume_id: b.body.id, name: "beta", seconds: 90 * 60, amount_micros: sum(b.body.id, before) },
      { day: after, volume_id: a.body.id, name: "alpha", seconds: 90 * 60, amount_micros: sum(a.body.id, after) },
      { day: after, volume_id: b.body.id, name: "beta", seconds: 90 * 60, amount_micros: sum(b.body.id, after) },
    ]);
    expect(byDay.body.total_micros).toBe(sum(a.body.id) + sum(b.body.id));
    expect(sum(a.body.id)).toBe(Number((20_000_000_000n * PRICE * BigInt(3 * HOUR)) / PER_MICRO));

    // A deleted volume stays in the report under the name it was charged by; group=instance sums each volume over the range.
    expect((await call("DELETE", `/v1/volumes/${b.body.id}`, { key })).status).toBe(204);
    const byVolume = await callJson<{ storage: unknown[]; total_micros: number }>("GET", `/v1/billing/usage?from=${before}&to=${after}&group=instance`, { key });
    const charged = (await ledger(key)).filter((entry) => entry.kind === "storage");
    const final = (volumeId: string) => -charged.filter((r) => r.volume_id === volumeId).reduce((total, r) => total + r.amount_micros, 0);
    expect(byVolume.body.storage).toEqual([
      { day: null, volume_id: a.body.id, name: "alpha", seconds: 3 * 60 * 60, amount_micros: final(a.body.id) },
      { day: null, volume_id: b.body.id, name: "beta", seconds: 3 * 60 * 60, amount_micros: final(b.body.id) },
    ]);
    await expectLedgerBalanced(accountId);
  });

  it("write no row for an hour that costs nothing, and none for an empty volume", async () => {
    const { id: accountId, key } = await newAccount(OPENING);
    const created = await callJson<Volume>("POST", "/v1/volumes", { key, body: { name: "small", size_gb: 1 } });
    await callJson<Volume>("POST", "/v1/volumes", { key, body: { name: "empty", size_gb: 1 } });
    // 5 MB costs 0.48 micro-dollars an hour.
    await keepBytes(accountId, created.body.id, 5_000_000);
    advanceClock(HOUR);
    await runDurableObjectAlarm(env.ACCOUNTS.getByName(accountId));
    expect((await ledger(key)).map((entry) => entry.kind)).toEqual(["credit"]);
    advanceClock(2 * HOUR);
    await runDurableObjectAlarm(env.ACCOUNTS.getByName(accountId));
    const [row] = (await ledger(key)).filter((entry) => entry.kind === "storage");
    expect(row).toMatchObject({ amount_micros: -1, volume_id: created.body.id });
  });

  it("price storage on /pricing.json and on each volume: stored GB × VOLUME_PRICE_GB_MONTH_MICROS a month", async () => {
    const pricing = await callJson<{ volume_price_gb_month_micros: number }>("GET", "/pricing.json");
    expect(pricing.body.volume_price_gb_month_micros).toBe(70_000);
    const { id: accountId, key } = await newAccount(OPENING);
    const created = await callJson<Volume>("POST", "/v1/volumes", { key, body: { name: "priced", size_gb: 100 } });
    expect(created.body.price_month_micros).toBe(0);
    await keepBytes(accountId, created.body.id, 12_345_678_901);
    const volume = await callJson<Volume>("GET", "/v1/volumes/priced", { key });
    expect(volume.body.price_month_micros).toBe(864_197); // 12.345678901 GB × $0.07, rounded down
  });
});
