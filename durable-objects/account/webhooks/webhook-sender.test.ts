// The sender's schedule on the AccountDO's clock: a failed delivery is retried after 5 s, 30 s, 2 min
// ..., then every 12 h; 3 days after its first attempt it is failed and the endpoint disabled, saying
// why. A queued delivery goes out with no further request (the alarm and the change's own round).
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { until } from "../../../test/support/workerd/poll.ts";
import { advanceClock, freezeClockInEachTest } from "../../../test/support/workerd/test-clock.ts";
import { clock } from "../../../core/clock.ts";
import { GIVE_UP_AFTER_MS, LATER_RETRY_MS, RETRY_DELAYS_MS } from "./webhook-sender.ts";

// Nothing listens on port 9 of the loopback host: every attempt fails at once, without the network.
const LOOPBACK = "http://127.0.0.1:8787";
const CLOSED = "http://127.0.0.1:9/hook";

interface Row { attempts: number; status: string; next_ms: number | null; first_attempt_ms: number | null }

const stored = (accountId: string): Promise<Row> => runInDurableObject(env.ACCOUNTS.getByName(accountId), (_, state) =>
  state.storage.sql.exec("SELECT attempts, status, next_ms, first_attempt_ms FROM webhook_deliveries").toArray()[0] as unknown as Row);

/** Moves the clock to the delivery's next attempt and asks the object to send what is due. */
async function nextAttempt(accountId: string, key: string, webhookId: string, attempts: number): Promise<Row> {
  const before = await stored(accountId);
  advanceClock(before.next_ms! - clock.now());
  await callJson("GET", `/v1/webhooks/${webhookId}/deliveries`, { key });
  return until(() => stored(accountId), (row) => row.attempts === attempts, `attempt ${attempts}`);
}

describe("webhook delivery schedule", () => {
  freezeClockInEachTest();

  it("sends a queued event with no further request, retries on the backoff, and gives up after 3 days, disabling the endpoint", async () => {
    const { id: accountId, key } = await newAccount();
    const { id } = (await callJson<{ id: string }>("POST", "/v1/webhooks", { key, body: { url: CLOSED }, base: LOOPBACK })).body;
    expect((await callJson("POST", `/v1/webhooks/${id}/test`, { key })).status).toBe(202);
    const first = await until(() => stored(accountId), (row) => row.attempts === 1, "the first attempt");
    expect(first.next_ms! - first.first_attempt_ms!).toBe(RETRY_DELAYS_MS[0]);

    let row = first;
    for (let attempt = 2; attempt <= RETRY_DELAYS_MS.length + 1; attempt++) {
      const previous = row;
      row = await nextAttempt(accountId, key, id, attempt);
      expect(row.next_ms! - previous.next_ms!, `after attempt ${attempt}`).toBe(RETRY_DELAYS_MS[attempt - 1] ?? LATER_RETRY_MS);
    }
    // Every 12 h from here until the 3 days are up.
    while (row.status === "pending") row = await nextAttempt(accountId, key, id, row.attempts + 1);
    expect(row).toMatchObject({ status: "failed", next_ms: null });
    expect(clock.now() - row.first_attempt_ms!).toBeLessThanOrEqual(GIVE_UP_AFTER_MS);

    const [endpoint] = (await callJson<{ items: { enabled: boolean; disabled_reason: string | null }[] }>("GET", "/v1/webhooks", { key })).body.items;
    expect(endpoint).toMatchObject({ enabled: false, disabled_reason: expect.stringMatching(/^deliveries failed for 3 days/) });
    const [delivery] = (await callJson<{ items: Record<string, unknown>[] }>("GET", `/v1/webhooks/${id}/deliveries`, { key })).body.items;
    expect(delivery).toMatchObject({ status: "failed", next_attempt_at: null, last_status_code: null, last_error: expect.any(String) });

    // Enabled again, it is sent another test; the retry of the failed one starts its 3 days anew.
    const enabled = await callJson("PATCH", `/v1/webhooks/${id}`, { key, body: { enabled: true } });
    expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null });
    expect((await callJson("POST", `/v1/webhooks/${id}/deliveries/${delivery!.id as string}/retry`, { key })).status).toBe(202);
    const retried = await until(() => stored(accountId), (r) => r.status === "pending" && r.first_attempt_ms !== null && r.attempts === row.attempts + 1, "the retry");
    expect(retried.first_attempt_ms).toBe(clock.now());
  });
});

describe("webhook events at rest", () => {
  const count = (accountId: string, table: string) => runInDurableObject(env.ACCOUNTS.getByName(accountId), (_, state) =>
    state.storage.sql.exec(`SELECT COUNT(*) AS n FROM ${table}`).one().n as number);

  it("an event no endpoint takes is not kept; one an endpoint takes is kept with its delivery (balance.low, once per crossing)", async () => {
    const alone = await newAccount(10_000_000);
    await callJson("POST", `/admin/v1/accounts/${alone.id}/credits`, { key: "test-admin-token-at-least-32-bytes-long", body: { amount_micros: -6_000_000, note: "test" } });
    expect(await count(alone.id, "webhook_events")).toBe(0);

    const hooked = await newAccount(10_000_000);
    await callJson("POST", "/v1/webhooks", { key: hooked.key, body: { url: CLOSED, events: ["balance.low"] }, base: LOOPBACK });
    for (const amount of [-6_000_000, -1_000_000]) {
      await callJson("POST", `/admin/v1/accounts/${hooked.id}/credits`, { key: "test-admin-token-at-least-32-bytes-long", body: { amount_micros: amount, note: "test" } });
    }
    expect(await count(hooked.id, "webhook_deliveries")).toBe(1);
    // Back above the threshold and below again: a second crossing, a second event.
    for (const amount of [3_000_000, -2_000_000]) {
      await callJson("POST", `/admin/v1/accounts/${hooked.id}/credits`, { key: "test-admin-token-at-least-32-bytes-long", body: { amount_micros: amount, note: "test" } });
    }
    expect(await count(hooked.id, "webhook_deliveries")).toBe(2);
  });
});
