// MachineDO's SQLite schema, created idempotently in the constructor.
import type { Sql } from "../sql.ts";

export function createMachineSchema(sql: Sql): void {
  sql`CREATE TABLE IF NOT EXISTS machine (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, token_hash TEXT NOT NULL, online INTEGER NOT NULL,
    last_seen_ms INTEGER, connection TEXT, state_version INTEGER NOT NULL, fleet_version INTEGER NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS gpus (
    idx INTEGER PRIMARY KEY, model TEXT NOT NULL, name TEXT NOT NULL, uuid TEXT NOT NULL, vram_mb INTEGER NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS reservations (gpu_index INTEGER PRIMARY KEY, instance_id TEXT NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS containers (
    instance_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, gpu_model TEXT NOT NULL, gpu_count INTEGER NOT NULL,
    spec TEXT NOT NULL, desired TEXT NOT NULL, actual TEXT NOT NULL, generation INTEGER NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS cached_models (hf TEXT PRIMARY KEY)`;
  // machine-record.ts: the volume versions its agent last said its cache holds whole (volume_cache).
  sql`CREATE TABLE IF NOT EXISTS held_volumes (volume_id TEXT PRIMARY KEY, version INTEGER NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS host_versions (id INTEGER PRIMARY KEY CHECK (id = 1), agent_version TEXT NOT NULL, driver_version TEXT NOT NULL, cuda_version TEXT NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS host_health (id INTEGER PRIMARY KEY CHECK (id = 1), degraded TEXT NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS host_resources (id INTEGER PRIMARY KEY CHECK (id = 1), memory_bytes INTEGER NOT NULL, cpus INTEGER NOT NULL)`;
  // machine-record.ts: the disk instances' disks live on, as the last hello said (none: not said).
  sql`CREATE TABLE IF NOT EXISTS host_disk (id INTEGER PRIMARY KEY CHECK (id = 1), total_bytes INTEGER NOT NULL, free_bytes INTEGER NOT NULL)`;
  // machine-record.ts: the public key of the agent's SSH server, as its last hello said.
  sql`CREATE TABLE IF NOT EXISTS host_ssh (id INTEGER PRIMARY KEY CHECK (id = 1), host_key TEXT NOT NULL)`;
  upgradeLegacyReports(sql);
}

/**
 * Reports had a table of their own before the outbox was shared: an object created then has it
 * renamed in place, so queued reports and the seq counter carry over. The seq must never restart:
 * each AccountDO skips every seq of this machine up to the last one it applied.
 */
export function upgradeLegacyReports(sql: Sql): void {
  if (sql`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'reports'`.length === 0) return;
  sql`ALTER TABLE reports RENAME TO outbox`;
  sql`ALTER TABLE outbox RENAME COLUMN account_id TO destination`;
  sql`ALTER TABLE outbox RENAME COLUMN report TO message`;
}
