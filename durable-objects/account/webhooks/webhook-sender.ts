// Delivers webhook events to their endpoints, at least once: a delivery row stays pending until its
// endpoint answers 2xx within WEBHOOK_TIMEOUT_MS, and is retried on the object's single alarm after
// the backoff below; a delivery still failing 3 days after its first attempt is marked failed and
// its endpoint disabled. Every retry carries the same `webhook-id` (the event id), so a receiver
// drops duplicates by it. Rows are the authority: a reset mid-delivery leaves the row pending and the
// next alarm sends it again.
import { clock, iso } from "../../../core/clock.ts";
import type { Env } from "../../../core/env.ts";
import { log } from "../../../core/log.ts";
import { webhookSignature } from "../../../core/webhook-signature.ts";
import type { AlarmCapability, SingleAlarm } from "../../outbox/single-alarm.ts";
import { DELIVERIES_KEPT } from "../../contracts/webhooks.ts";
import type { Sql } from "../../sql.ts";
import { deliveryErrorText } from "./delivery-error.ts";
import { openSecret } from "./webhook-secret-box.ts";

/** A receiver that has not answered within this long is cut off and the attempt failed. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** Waits after the 1st, 2nd ... failed attempt; every 12 h after the last of these. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 3_600_000, 6 * 3_600_000];
export const LATER_RETRY_MS = 12 * 3_600_000;

/** How long after its first attempt a delivery is given up on, and its endpoint disabled. */
export const GIVE_UP_AFTER_MS = 3 * 24 * 3_600_000;

/** How many deliveries are in flight at once. */
const PARALLEL = 10;

const EXCERPT_CHARS = 200;

interface DueRow {
  id: string; webhook_id: string; event_id: string; attempts: number; first_attempt_ms: number | null;
  url: string; secret: string; previous_secret: string | null; previous_until_ms: number | null;
  type: string; data: string; created_at: string;
}

export class WebhookSender implements AlarmCapability {
  private readonly sql: Sql;
  private readonly env: Env;
  private readonly alarms: SingleAlarm;
  private sending: Promise<void> | null = null;
  private sendAgain = false;

  /** An object started with deliveries pending (reset mid-delivery) wakes on its own to send them. */
  constructor(sql: Sql, env: Env, alarms: SingleAlarm) {
    this.sql = sql;
    this.env = env;
    this.alarms = alarms;
    if (this.nextAlarmMs() !== null) alarms.backstop();
  }

  nextAlarmMs(): number | null {
    return this.sql<{ next: number | null }>`
      SELECT MIN(d.next_ms) AS next FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.status = 'pending' AND w.enabled = 1`[0]?.next ?? null;
  }

  onAlarm(): Promise<void> {
    return this.send();
  }

  onChange(): Promise<void> {
    return this.send();
  }

  /** Single flight: one round at a time, another after it when asked meanwhile (as the outbox does). */
  send(): Promise<void> {
    if (this.sending) {
      this.sendAgain = true;
      return this.sending;
    }
    // Cleared in a callback, never inside the rounds: a round with nothing due finishes synchronously,
    // before the assignment below, and would leave a settled promise in place for good.
    const sending = this.rounds().finally(() => {
      this.sending = null;
    });
    this.sending = sending;
    return sending;
  }

  private async rounds(): Promise<void> {
    do {
      this.sendAgain = false;
      const due = this.due();
      if (due.length === 0) continue;
      for (const row of due) this.claim(row);
      // The alarm now rings when the claims lapse: an object reset mid-delivery sends them again then.
      await this.alarms.reschedule();
      await Promise.all(due.map((row) => this.attempt(row)));
    } while (this.sendAgain);
  }

  private due(): DueRow[] {
    return this.sql<DueRow>`
      SELECT d.id, d.webhook_id, d.event_id, d.attempts, d.first_attempt_ms, w.url, w.secret, w.previous_secret, w.previous_until_ms,
             e.type, e.data, e.created_at
      FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN webhook_events e ON e.id = d.event_id
      WHERE d.status = 'pending' AND w.enabled = 1 AND d.next_ms <= ${clock.now()} ORDER BY d.seq LIMIT ${PARALLEL}`;
  }

  /** Claimed before sending, so another round does not send it too while this one waits for an answer. */
  private claim(row: DueRow): void {
    const nowMs = clock.now();
    this.sql`UPDATE webhook_deliveries SET next_ms = ${nowMs + WEBHOOK_TIMEOUT_MS + 1_000},
               first_attempt_ms = COALESCE(first_attempt_ms, ${nowMs}) WHERE id = ${row.id}`;
  }

  private async attempt(row: DueRow): Promise<void> {
    const startedMs = clock.now();
    const outcome = await this.post(row, startedMs);
    if (outcome.delivered) {
      this.sql`UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, last_status_code = ${outcome.status},
                 last_error = NULL, next_ms = NULL WHERE id = ${row.id}`;
    } else {
      // The backoff counts from the failure: a receiver cut off at the timeout waits the whole delay again.
      this.failed(row, outcome, clock.now());
    }
    this.prune(row.webhook_id);
  }

  private failed(row: DueRow, outcome: { status: number | null; error: string }, nowMs: number): void {
    const attempts = row.attempts + 1;
    const firstMs = row.first_attempt_ms ?? nowMs;
    const nextMs = nowMs + (RETRY_DELAYS_MS[attempts - 1] ?? LATER_RETRY_MS);
    const givenUp = nextMs - firstMs > GIVE_UP_AFTER_MS;
    this.sql`UPDATE webhook_deliveries SET status = ${givenUp ? "failed" : "pending"}, attempts = ${attempts},
               last_status_code = ${outcome.status}, last_error = ${outcome.error}, next_ms = ${givenUp ? null : nextMs} WHERE id = ${row.id}`;
    if (givenUp) {
      const reason = `deliveries failed for 3 days (last: ${outcome.error}); disabled at ${iso(nowMs)}`;
      this.sql`UPDATE webhooks SET enabled = 0, disabled_reason = ${reason} WHERE id = ${row.webhook_id}`;
    }
    log("warn", "webhook delivery failed", { webhook_id: row.webhook_id, delivery_id: row.id, attempts, error: outcome.error });
  }

  /** One POST; any 2xx within the timeout delivers it. Redirects are not followed (a 3xx is a failure). */
  private async post(row: DueRow, nowMs: number): Promise<{ delivered: true; status: number } | { delivered: false; status: number | null; error: string }> {
    const body = JSON.stringify({ type: row.type, timestamp: row.created_at, data: JSON.parse(row.data) as unknown });
    const timestampS = Math.floor(nowMs / 1000);
    try {
      const signatures = [await this.sign(row.secret, row, timestampS, body)];
      if (row.previous_secret !== null && row.previous_until_ms !== null && nowMs < row.previous_until_ms) {
        signatures.push(await this.sign(row.previous_secret, row, timestampS, body));
      }
      const response = await fetch(row.url, {
        method: "POST", body, redirect: "manual", signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
        headers: {
          "content-type": "application/json", "user-agent": "gpu-rental-webhooks",
          "webhook-id": row.event_id, "webhook-timestamp": String(timestampS), "webhook-signature": signatures.join(" "),
        },
      });
      const text = (await response.text()).slice(0, EXCERPT_CHARS);
      if (response.status >= 200 && response.status < 300) return { delivered: true, status: response.status };
      return { delivered: false, status: response.status, error: `HTTP ${response.status}: ${text}` };
    } catch (error) {
      return { delivered: false, status: null, error: deliveryErrorText(error, row.url, WEBHOOK_TIMEOUT_MS).slice(0, EXCERPT_CHARS) };
    }
  }

  private async sign(sealed: string, row: DueRow, timestampS: number, body: string): Promise<string> {
    return webhookSignature(await openSecret(this.env.INSTANCE_TOKEN_SECRET, row.webhook_id, sealed), row.event_id, timestampS, body);
  }

  /** Keeps an endpoint's last DELIVERIES_KEPT deliveries (pending ones always) and the events they name. */
  private prune(webhookId: string): void {
    this.sql`DELETE FROM webhook_deliveries WHERE webhook_id = ${webhookId} AND status <> 'pending' AND seq NOT IN
               (SELECT seq FROM webhook_deliveries WHERE webhook_id = ${webhookId} ORDER BY seq DESC LIMIT ${DELIVERIES_KEPT})`;
    this.sql`DELETE FROM webhook_events WHERE id NOT IN (SELECT event_id FROM webhook_deliveries)`;
  }
}
