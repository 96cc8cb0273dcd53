// An account's webhook endpoints: created (the secret shown once), listed, changed, deleted, their
// secret rotated (the previous one keeps signing for a day), a test event sent, their deliveries
// listed and retried. The AccountDO is the authority; another account's endpoint is simply not found.
import { clock, iso } from "../../../core/clock.ts";
import type { Env } from "../../../core/env.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import { randomBase32 } from "../../../core/ids.ts";
import { newWebhookSecret } from "../../../core/webhook-signature.ts";
import { DELIVERIES_KEPT, MAX_WEBHOOKS, type WebhookAnswer, type WebhookCall, type WebhookDelivery, type WebhookEndpoint } from "../../contracts/webhooks.ts";
import type { Sql } from "../../sql.ts";
import { newEventId } from "./webhook-events.ts";
import { sealSecret } from "./webhook-secret-box.ts";
import { WebhookSender } from "./webhook-sender.ts";
import type { SingleAlarm } from "../../outbox/single-alarm.ts";
import { recordAudit } from "../audit/audit-log.ts";

/** How long a rotated-out secret still signs, so receivers can switch over. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

interface EndpointRow {
  id: string; url: string; events: string; description: string; enabled: number; created_at: string; disabled_reason: string | null;
}

export interface WebhookParts {
  sql: Sql;
  env: Env;
  transaction<T>(fn: () => T): T;
}

export class WebhookEndpoints {
  private readonly parts: WebhookParts;
  /** Sends what the endpoints' events queue; the AccountDO registers it on its alarm. */
  readonly sender: WebhookSender;

  constructor(parts: WebhookParts, alarms: SingleAlarm) {
    this.parts = parts;
    this.sender = new WebhookSender(parts.sql, parts.env, alarms);
  }

  async handle(call: WebhookCall): Promise<WebhookAnswer | Failure> {
    if (call.op === "list") return { ok: true, items: this.rows().map(toEndpoint) };
    if (call.op === "create") return this.create(call);
    if (call.op === "low_balance") {
      this.parts.transaction(() => {
        this.parts.sql`UPDATE account SET low_balance_micros = ${call.micros}`;
        recordAudit(this.parts.sql, { action: "account.update", target: { type: "account", id: null }, detail: `low balance alert at ${call.micros} micros` });
      });
      return { ok: true };
    }
    const row = this.row(call.id);
    if (!row) return fail("not_found", `no webhook ${call.id} in this account`);
    switch (call.op) {
      case "update": return this.update(row, call);
      case "delete": return this.remove(row);
      case "rotate": return this.rotate(row);
      case "test": return this.test(row);
      case "deliveries": return { ok: true, deliveries: this.deliveries(row.id) };
      case "retry": return this.retry(row, call.delivery_id);
    }
  }

  private async create(call: Extract<WebhookCall, { op: "create" }>): Promise<WebhookAnswer | Failure> {
    const id = "wh_" + randomBase32(16);
    const secret = newWebhookSecret();
    const sealed = await sealSecret(this.parts.env.INSTANCE_TOKEN_SECRET, id, secret);
    const { sql } = this.parts;
    // Counted and inserted in one synchronous step: simultaneous creates cannot pass the limit.
    const created = this.parts.transaction(() => {
      if (this.rows().length >= MAX_WEBHOOKS) return false;
      sql`INSERT INTO webhooks (id, url, events, description, enabled, created_at, secret)
          VALUES (${id}, ${call.url}, ${JSON.stringify(call.events)}, ${call.description}, 1, ${iso(clock.now())}, ${sealed})`;
      recordAudit(sql, { action: "webhook.create", target: { type: "webhook", id }, detail: `${call.url} (${call.events.join(" ")})` });
      return true;
    });
    if (!created) return fail("conflict", `an account has at most ${MAX_WEBHOOKS} webhooks; delete one first`);
    return { ok: true, endpoint: toEndpoint(this.row(id)!), secret };
  }

  private update(row: EndpointRow, call: Extract<WebhookCall, { op: "update" }>): WebhookAnswer {
    const { sql } = this.parts;
    const enabled = call.enabled ?? row.enabled === 1;
    // Enabling again clears why it was disabled; its deliveries still pending resume.
    const reason = enabled ? null : row.disabled_reason;
    this.parts.transaction(() => {
      sql`UPDATE webhooks SET url = ${call.url ?? row.url}, events = ${call.events ? JSON.stringify(call.events) : row.events},
            description = ${call.description ?? row.description}, enabled = ${enabled ? 1 : 0}, disabled_reason = ${reason}
          WHERE id = ${row.id}`;
      recordAudit(sql, { action: "webhook.update", target: { type: "webhook", id: row.id }, detail: `${call.url ?? row.url}${enabled ? "" : " (disabled)"}` });
    });
    return { ok: true, endpoint: toEndpoint(this.row(row.id)!) };
  }

  private remove(row: EndpointRow): WebhookAnswer {
    const { sql } = this.parts;
    this.parts.transaction(() => {
      sql`DELETE FROM webhooks WHERE id = ${row.id}`;
      sql`DELETE FROM webhook_deliveries WHERE webhook_id = ${row.id}`;
      sql`DELETE FROM webhook_events WHERE id NOT IN (SELECT event_id FROM webhook_deliveries)`;
      recordAudit(sql, { action: "webhook.delete", target: { type: "webhook", id: row.id }, detail: row.url });
    });
    return { ok: true };
  }

  private async rotate(row: EndpointRow): Promise<WebhookAnswer> {
    const secret = newWebhookSecret();
    const sealed = await sealSecret(this.parts.env.INSTANCE_TOKEN_SECRET, row.id, secret);
    this.parts.transaction(() => {
      this.parts.sql`UPDATE webhooks SET previous_secret = secret, previous_until_ms = ${clock.now() + ROTATION_OVERLAP_MS}, secret = ${sealed}
                     WHERE id = ${row.id}`;
      recordAudit(this.parts.sql, { action: "webhook.rotate_secret", target: { type: "webhook", id: row.id }, detail: row.url });
    });
    return { ok: true, secret };
  }

  /** A `webhook.test` event for this endpoint alone (the fan-out trigger leaves test events out). */
  private test(row: EndpointRow): WebhookAnswer | Failure {
    if (row.enabled !== 1) return fail("conflict", `webhook ${row.id} is disabled; enable it to send a test`);
    const { sql } = this.parts;
    const eventId = newEventId();
    const at = iso(clock.now());
    this.parts.transaction(() => {
      sql`INSERT INTO webhook_events (id, type, data, created_at) VALUES (${eventId}, 'webhook.test', '{}', ${at})`;
      sql`INSERT INTO webhook_deliveries (id, webhook_id, event_id, status, next_ms, created_at)
          VALUES (${"whd_" + randomBase32(16)}, ${row.id}, ${eventId}, 'pending', 0, ${at})`;
    });
    return { ok: true };
  }

  private deliveries(webhookId: string): WebhookDelivery[] {
    return this.parts.sql<DeliveryRow>`
      SELECT d.id, d.event_id, e.type, d.status, d.attempts, d.last_status_code, d.last_error, d.next_ms, d.created_at
      FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.webhook_id = ${webhookId} ORDER BY d.seq DESC LIMIT ${DELIVERIES_KEPT}`.map(toDelivery);
  }

  /** Sends one delivery again now, whatever became of it; its 3-day window starts over. */
  private retry(row: EndpointRow, deliveryId: string): WebhookAnswer | Failure {
    const [found] = this.parts.sql`UPDATE webhook_deliveries SET status = 'pending', next_ms = 0, first_attempt_ms = NULL
                                   WHERE id = ${deliveryId} AND webhook_id = ${row.id} RETURNING id`;
    return found ? { ok: true } : fail("not_found", `no delivery ${deliveryId} of webhook ${row.id}`);
  }

  private rows(): EndpointRow[] {
    return this.parts.sql<EndpointRow>`SELECT * FROM webhooks ORDER BY created_at, id`;
  }

  private row(id: string): EndpointRow | undefined {
    return this.parts.sql<EndpointRow>`SELECT * FROM webhooks WHERE id = ${id}`[0];
  }
}

interface DeliveryRow {
  id: string; event_id: string; type: string; status: WebhookDelivery["status"]; attempts: number;
  last_status_code: number | null; last_error: string | null; next_ms: number | null; created_at: string;
}

function toDelivery(row: DeliveryRow): WebhookDelivery {
  const { next_ms, ...rest } = row;
  // A delivery not yet tried is due from its creation (next_ms 0: at once).
  const next = row.status !== "pending" || next_ms === null ? null : next_ms === 0 ? row.created_at : iso(next_ms);
  return { ...rest, next_attempt_at: next };
}

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id, url: row.url, events: JSON.parse(row.events) as string[], description: row.description,
    enabled: row.enabled === 1, created_at: row.created_at, disabled_reason: row.disabled_reason,
  };
}
