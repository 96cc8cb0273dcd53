// AccountDO's SQLite schema, created idempotently in the constructor.
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
  sql`CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, machine_id INTEGER NOT NULL, instance_id TEXT NOT NULL,
    desired TEXT NOT NULL, generation INTEGER NOT NULL, attempts INTEGER NOT NULL, next_ms INTEGER NOT NULL)`;
}
