// FleetDO's SQLite schema, created idempotently in the constructor.
import { addColumnIfMissing } from "../add-column.ts";
import type { Sql } from "../sql.ts";

export function createFleetSchema(sql: Sql): void {
  sql`CREATE TABLE IF NOT EXISTS gpu_models (
    model TEXT PRIMARY KEY, display_name TEXT NOT NULL, vram_gb INTEGER NOT NULL,
    price_hour_micros INTEGER NOT NULL, tier TEXT NOT NULL, arch TEXT NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS machines (
    id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, created_at TEXT NOT NULL, online INTEGER NOT NULL,
    last_seen_at TEXT, gpus TEXT NOT NULL, free_indices TEXT NOT NULL, cached_models TEXT NOT NULL,
    state_version INTEGER NOT NULL DEFAULT 0)`;
  // Added after the machines table first shipped: an older database gains them in place.
  for (const column of ["agent_version", "driver_version", "cuda_version", "degraded"]) addColumnIfMissing(sql, "machines", column, "TEXT NOT NULL DEFAULT ''");
  // The machine's disk as its MachineDO reports it (contracts/fleet.ts, MachineDisk); NULL until an agent said.
  addColumnIfMissing(sql, "machines", "disk", "TEXT");
  // The volume versions its host's cache holds whole (contracts/fleet.ts, MachineState.held_volumes).
  addColumnIfMissing(sql, "machines", "held_volumes", "TEXT NOT NULL DEFAULT '[]'");
}
