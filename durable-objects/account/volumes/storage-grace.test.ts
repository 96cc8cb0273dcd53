// A used-up balance and volumes, on a frozen clock: the grace begins at the settlement that finds the
// balance at or below zero (volume.deletion_scheduled once per volume, `delete_at` on the volume),
// storage is still charged meanwhile, the volumes and their objects go exactly VOLUME_GRACE_DAYS
// later, a payment that brings the balance above zero ends the grace, and a volume held by an
// instance waits for that instance to be destroyed.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { clock } from "../../../core/clock.ts";
import { admin, call, callJson, newAccount, keyCredential } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";
import { keepBytes } from "../../../test/support/workerd/kept-bytes.ts";
import { expectLedgerBalanced } from "../../../test/support/workerd/ledger-audit.ts";
import { until } from "../../../test/support/workerd/poll.ts";
import { advanceClock, freezeClockInEachTest } from "../../../test/support/workerd/test-clock.ts";
import { storedNames, storeSave } from "../../../test/support/workerd/volume-content.ts";
import { webhookReceiverUrl } from "../../../test/support/workerd/webhook-receiver-url.ts";
import { sqlFor } from "../../sql.ts";

interface Volume { id: string; name: string; delete_at: string | null }

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const GRACE = 7 * DAY;
/** 1,000 GB: 95,890 micro-dollars an hour. */
const TERABYTE = 1_000_000_000_000;
let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("volume-grace-host", ["rtx4090", "rtx4090"]);
});
freezeClockInEachTest();

/** An account of `balance` with a volume `data` holding real objects and a terabyte kept, and an empty volume `spare`. */
async function accountWithVolumes(balance: number) {
  const { id: accountId, key } = await newAccount(balance);
  const account = env.ACCOUNTS.getByName(accountId);
  // A receiver that answers 204, so the endpoint is never disabled for failing over the days the test moves across.
  const hook = await callJson<{ id: string }>("POST", "/v1/webhooks", { key, base: "http://127.0.0.1", body: { url: `${webhookReceiverUrl()}/status/204`, events: ["volume.deletion_scheduled"] } });
  expect(hook.status).toBe(201);
  const data = (await callJson<Volume>("POST", "/v1/volumes", { key, body: { name: "data", size_gb: 2_000 } })).body;
  const spare = (await callJson<Volume>("POST", "/v1/volumes", { key, body: { name: "spare", size_gb: 1 } })).body;
  const save = await storeSave(accountId, data.id, { "weights.bin": "w".repeat(4_096) });
  expect(await account.commitVolumeFiles(keyCredential(key), { volume_id: data.id, instance_id: null, base_version: 0, manifest: save.manifest, bytes_sent: 4_096 })).toMatchObject({ ok: true });
  await keepBytes(accountId, data.id, TERABYTE);
  const volume = (name: string) => callJson<Volume>("GET", `/v1/volumes/${name}`, { key });
  /** The deletion_scheduled events sent to the endpoint, oldest first. */
  const scheduled = () => runInDurableObject(account, (_, state) =>
    sqlFor(state.storage)<{ data: string }>`SELECT e.data FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.webhook_id = ${hook.body.id} AND e.type = 'volume.deletion_scheduled' ORDER BY d.seq`.map((row) => JSON.parse(row.data) as unknown));
  const ring = () => runDurableObjectAlarm(account);
  return { accountId, key, account, hookId: hook.body.id, data, spare, volume, scheduled, ring };
}

const moveTo = (atMs: number) => advanceClock(atMs - clock.now());

describe("volumes at a used-up balance", () => {
  it("are scheduled for deletion once, at the settlement that finds the balance at zero, and deleted with their objects exactly VOLUME_GRACE_DAYS later", async () => {
    const v = await accountWithVolumes(200_000);
    const start = clock.now();
    moveTo(start + HOUR);
    await v.ring();
    expect((await v.volume("data")).body.delete_at).toBeNull();
    expect(await v.scheduled()).toEqual([]);

    // About 2.09 hours of a terabyte use the balance up: the settlement after it begins the grace.
    moveTo(start + 3 * HOUR);
    await v.ring();
    const deleteAt = new Date(clock.now() + GRACE).toISOString();
    expect((await v.volume("data")).body.delete_at).toBe(deleteAt);
    expect((await v.volume("spare")).body.delete_at).toBe(deleteAt);
    expect(await v.scheduled()).toEqual([{ volume_id: v.data.id, delete_at: deleteAt }, { volume_id: v.spare.id, delete_at: deleteAt }]);
    const deliveries = await callJson<{ items: { type: string }[] }>("GET", `/v1/webhooks/${v.hookId}/deliveries`, { key: v.key });
    expect(deliveries.body.items.map((d) => d.type)).toEqual(["volume.deletion_scheduled", "volume.deletion_scheduled"]);

    // Storage is still charged during the grace; later settlements and reads schedule nothing again.
    const balanceAtStart = (await callJson<{ balance_micros: number }>("GET", "/v1/me", { key: v.key })).body.balance_micros;
    expect(balanceAtStart).toBeLessThanOrEqual(0);
    moveTo(clock.now() + 5 * HOUR);
    await v.ring();
    expect((await callJson<{ balance_micros: number }>("GET", "/v1/me", { key: v.key })).body.balance_micros).toBeLessThan(balanceAtStart - 4 * 95_000);
    expect(await v.scheduled()).toHaveLength(2);
    expect((await v.volume("data")).body.delete_at).toBe(deleteAt);

    moveTo(Date.parse(deleteAt) - 1);
    await v.ring();
    expect((await v.volume("data")).status).toBe(200);
    expect(await storedNames(v.accountId, v.data.id)).not.toEqual([]);

    moveTo(Date.parse(deleteAt));
    await v.ring();
    expect((await v.volume("data")).status).toBe(404);
    expect((await v.volume("spare")).status).toBe(404);
    expect(await storedNames(v.accountId, v.data.id)).toEqual([]);
    // Charged up to the moment it went, and not after.
    const [last] = (await callJson<{ items: { kind: string; volume_id: string; note: string }[] }>("GET", "/v1/billing/ledger", { key: v.key })).body.items;
    expect(last).toMatchObject({ kind: "storage", volume_id: v.data.id });
    expect(last!.note.startsWith(`${new Date(Date.parse(deleteAt) - (Date.parse(deleteAt) % HOUR)).toISOString().slice(11, 16)}–${deleteAt.slice(11, 16)} UTC`)).toBe(true);
    await expectLedgerBalanced(v.accountId);
  });

  it("are kept when a payment brings the balance above zero, and scheduled again when it runs out again", async () => {
    const v = await accountWithVolumes(100_000);
    moveTo(clock.now() + 2 * HOUR);
    await v.ring();
    const firstDate = (await v.volume("data")).body.delete_at!;
    expect(firstDate).not.toBeNull();

    // A payment that leaves the balance at or below zero changes nothing.
    const pay = async (session_id: string, amount_micros: number) => {
      await v.account.recordCheckout({ session_id, amount_micros });
      expect(await v.account.receivePayment({ kind: "paid", session_id, amount_micros, created_s: Math.floor(clock.now() / 1000) })).toEqual({ ok: true, applied: true });
    };
    const owed = -(await callJson<{ balance_micros: number }>("GET", "/v1/me", { key: v.key })).body.balance_micros;
    await pay("cs_test_too_little", owed);
    expect((await v.volume("data")).body.delete_at).toBe(firstDate);

    // Enough for the terabyte's 8 days (16.1 dollars): the first date passes and nothing is deleted.
    await pay("cs_test_enough", 20_000_000);
    expect((await v.volume("data")).body.delete_at).toBeNull();
    expect((await v.volume("spare")).body.delete_at).toBeNull();
    moveTo(Date.parse(firstDate) + HOUR);
    await v.ring();
    expect((await v.volume("data")).body).toMatchObject({ name: "data", delete_at: null });
    expect((await v.volume("spare")).body).toMatchObject({ name: "spare", delete_at: null });
    expect(await storedNames(v.accountId, v.data.id)).not.toEqual([]);
    expect(await v.scheduled()).toHaveLength(2);

    // The operator's debit that uses the balance up begins a grace; a credit ends it.
    const debit = await admin("POST", `/accounts/${v.accountId}/credits`, { amount_micros: -5_000_000, note: "test debit" });
    expect(debit.status).toBe(200);
    const again = (await v.volume("data")).body.delete_at;
    expect(again).toBe(new Date(clock.now() + GRACE).toISOString());
    expect(await v.scheduled()).toHaveLength(4);
    await admin("POST", `/accounts/${v.accountId}/credits`, { amount_micros: 10_000_000, note: "test credit" });
    expect((await v.volume("data")).body.delete_at).toBeNull();
    await expectLedgerBalanced(v.accountId);
  });

  it("made when the balance is already used up, even empty, get their date at the settlement the alarm makes next", async () => {
    const { id: accountId, key } = await newAccount(0);
    const created = await callJson<Volume>("POST", "/v1/volumes", { key, body: { name: "late", size_gb: 1 } });
    expect(created.body.delete_at).toBeNull();
    // Due at once: the alarm rings by itself, or here.
    const late = await until(async () => (await runDurableObjectAlarm(env.ACCOUNTS.getByName(accountId)), callJson<Volume>("GET", "/v1/volumes/late", { key })),
      (r) => r.body.delete_at !== null, "a date");
    expect(late.body.delete_at).toBe(new Date(clock.now() + GRACE).toISOString());
  });

  it("wait for the instance holding one to be destroyed: it was stopped for funds, and the volume goes once its host reports it destroyed", async () => {
    const v = await accountWithVolumes(1_000_000);
    const instance = await runningOn(agent, v.key, { volumes: [{ volume_id: "data" }] });
    moveTo(clock.now() + 3 * HOUR);
    await v.ring();
    await agent.waitForCommand(instance, "stop");
    agent.report(instance, "stopped");
    const deleteAt = (await v.volume("data")).body.delete_at!;
    expect(deleteAt).not.toBeNull();

    moveTo(Date.parse(deleteAt) + DAY);
    await v.ring();
    expect((await v.volume("spare")).status).toBe(404);
    expect((await v.volume("data")).status).toBe(200);

    expect((await call("DELETE", `/v1/instances/${instance}`, { key: v.key })).status).toBe(204);
    await agent.waitForCommand(instance, "destroy");
    agent.report(instance, "destroyed");
    await until(async () => (await v.ring(), v.volume("data")), (r) => r.status === 404, "deleted once detached");
    // The record goes in the deletion's transaction and its objects right after it, on whichever alarm run deleted it.
    expect(await until(() => storedNames(v.accountId, v.data.id), (names) => names.length === 0, "its objects deleted")).toEqual([]);
  });
});
