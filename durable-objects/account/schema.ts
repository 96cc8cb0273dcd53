// AccountDO's SQLite schema, created idempotently in the constructor.
import { createOutboxTable } from "../outbox/outbox.ts";
import type { Sql } from "../sql.ts";

export function createAccountSchema(sql: Sql): void {
  sql`CREATE TABLE IF NOT EXISTS account (
    id TEXT PRIMARY KEY, referral_code TEXT NOT NULL, created_at TEXT NOT NULL, balance_micros INTEGER NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, prefix TEXT NOT NULL, hash TEXT NOT NULL,
    created_at TEXT NOT NULL, last_used_at TEXT, revoked_at TEXT)`;
  sql`CREATE TABLE IF NOT EXISTS ledger (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, amount_micros INTEGER NOT NULL,
    instance_id TEXT, note TEXT NOT NULL, created_at TEXT NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS instances (
    id TEXT PRIMARY KEY, label TEXT NOT NULL, status TEXT NOT NULL, status_message TEXT NOT NULL,
    desired_state TEXT NOT NULL, gpu_model TEXT NOT NULL, gpu_count INTEGER NOT NULL, template TEXT NOT NULL,
    model TEXT NOT NULL, image TEXT NOT NULL, disk_gb INTEGER NOT NULL, ports TEXT NOT NULL, env TEXT NOT NULL,
    token TEXT NOT NULL, price_hour_micros INTEGER NOT NULL, machine_id INTEGER, machine_online INTEGER NOT NULL,
    created_at TEXT NOT NULL, created_ms INTEGER NOT NULL, started_at TEXT, destroyed_ms INTEGER,
    generation INTEGER NOT NULL, billed_until_ms INTEGER, carry INTEGER NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, instance_id TEXT NOT NULL, message TEXT NOT NULL, created_at TEXT NOT NULL)`;
  sql`CREATE INDEX IF NOT EXISTS events_by_instance ON events (instance_id, seq)`;
  sql`CREATE TABLE IF NOT EXISTS idempotency (
    key TEXT PRIMARY KEY, body_hash TEXT NOT NULL, instance_id TEXT NOT NULL, created_ms INTEGER NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS machine_seq (machine_id INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL)`;
  upgradeLegacyOutbox(sql);
}

/**
 * Desired-state changes had a table of their own before the outbox was shared (typed columns, the
 * machine id as an integer): an object created then has its queued changes moved into outbox rows.
 */
export function upgradeLegacyOutbox(sql: Sql): void {
  if (sql`SELECT 1 FROM pragma_table_info('outbox') WHERE name = 'machine_id'`.length === 0) return;
  sql`ALTER TABLE outbox RENAME TO outbox_legacy`;
  createOutboxTable(sql);
  sql`INSERT INTO outbox (destination, message, attempts, next_ms)
      SELECT machine_id, json_object('instance_id', instance_id, 'desired', desired, 'generation', generation), attempts, next_ms
      FROM outbox_legacy ORDER BY seq`;
  sql`DROP TABLE outbox_legacy`;
}
