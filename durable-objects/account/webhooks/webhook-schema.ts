// The AccountDO's webhook tables and the triggers that turn changes into events. Events are written
// by SQLite triggers on the rows whose change they report, so every path that changes an instance's
// status or the balance (reports, requests, billing, timeouts) records its event in the same
// transaction as the change: none is lost if the object restarts after it, none exists if the change
// rolls back. Events computed in code (port readiness, stops for funds, tests) are written by
// webhook-events.ts inside their change's transaction. A trigger on `webhook_events` fans each event
// out to one delivery per enabled endpoint subscribed to its type; webhook-sender.ts delivers them.
import { addColumnIfMissing } from "../../add-column.ts";
import type { Sql } from "../../sql.ts";

/** The balance below which `balance.low` is sent, for an account that has not chosen one. */
export const DEFAULT_LOW_BALANCE_MICROS = 5_000_000;

const NOW_ISO = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";
const NEW_EVENT_ID = "'msg_' || lower(hex(randomblob(12)))";

export function createWebhookSchema(sql: Sql): void {
  // webhook-endpoints.ts. `events`: a JSON array of types, or ["*"]; the secrets are sealed (webhook-secret-box.ts).
  sql`CREATE TABLE IF NOT EXISTS webhooks (
    id TEXT PRIMARY KEY, url TEXT NOT NULL, events TEXT NOT NULL, description TEXT NOT NULL, enabled INTEGER NOT NULL,
    created_at TEXT NOT NULL, disabled_reason TEXT, secret TEXT NOT NULL, previous_secret TEXT, previous_until_ms INTEGER)`;
  sql`CREATE TABLE IF NOT EXISTS webhook_events (id TEXT PRIMARY KEY, type TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL)`;
  // webhook-sender.ts: one row per event and endpoint; `next_ms` null once it is no longer pending.
  sql`CREATE TABLE IF NOT EXISTS webhook_deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, webhook_id TEXT NOT NULL, event_id TEXT NOT NULL,
    status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_status_code INTEGER, last_error TEXT,
    next_ms INTEGER, first_attempt_ms INTEGER, created_at TEXT NOT NULL)`;
  sql`CREATE INDEX IF NOT EXISTS webhook_deliveries_by_endpoint ON webhook_deliveries (webhook_id, seq)`;
  addColumnIfMissing(sql, "account", "low_balance_micros", `INTEGER NOT NULL DEFAULT ${DEFAULT_LOW_BALANCE_MICROS}`);
  createTriggers(sql);
}

function createTriggers(sql: Sql): void {
  // The statements hold only constants of this file, never input.
  const exec = (text: string) => sql([text] as unknown as TemplateStringsArray);
  exec(`CREATE TRIGGER IF NOT EXISTS webhook_fan_out AFTER INSERT ON webhook_events WHEN NEW.type <> 'webhook.test' BEGIN
    INSERT INTO webhook_deliveries (id, webhook_id, event_id, status, next_ms, created_at)
      SELECT 'whd_' || lower(hex(randomblob(10))), w.id, NEW.id, 'pending', 0, NEW.created_at FROM webhooks w
      WHERE w.enabled = 1 AND EXISTS (SELECT 1 FROM json_each(w.events) e WHERE e.value IN ('*', NEW.type));
    -- An event no endpoint takes is not kept: an account without webhooks stores none.
    DELETE FROM webhook_events WHERE id = NEW.id AND NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE event_id = NEW.id);
  END`);
  // Placed rows only: a row still being placed is invisible to the customer (instance-row.ts).
  exec(`CREATE TRIGGER IF NOT EXISTS webhook_status_changed AFTER UPDATE OF status ON instances
    WHEN OLD.status <> NEW.status AND NEW.machine_id IS NOT NULL BEGIN
    INSERT INTO webhook_events (id, type, data, created_at) VALUES (${NEW_EVENT_ID}, 'instance.status_changed',
      json_object('instance_id', NEW.id, 'label', NEW.label, 'from', OLD.status, 'to', NEW.status, 'status_message', NEW.status_message), ${NOW_ISO});
  END`);
  // Once per crossing: only the change that takes the balance from at or above the threshold to below it.
  exec(`CREATE TRIGGER IF NOT EXISTS webhook_balance_low AFTER UPDATE OF balance_micros ON account
    WHEN NEW.low_balance_micros > 0 AND OLD.balance_micros >= NEW.low_balance_micros AND NEW.balance_micros < NEW.low_balance_micros BEGIN
    INSERT INTO webhook_events (id, type, data, created_at) VALUES (${NEW_EVENT_ID}, 'balance.low',
      json_object('balance_micros', NEW.balance_micros, 'threshold_micros', NEW.low_balance_micros), ${NOW_ISO});
  END`);
}
