// The volumes' tables of the AccountDO (account/schema.ts creates them with the rest). Each is
// read and written by this folder alone; `instances.volumes` is what an instance was launched with.
import { addColumnIfMissing } from "../../add-column.ts";
import type { Sql } from "../../sql.ts";

export function createVolumeSchema(sql: Sql): void {
  // volume-store.ts. `manifest`: the latest version's (null at version 0); `stored_bytes`: the unique
  // chunks the latest version and the snapshots keep. Billing's columns: `billed_until_ms`, `delete_at_ms`.
  sql`CREATE TABLE IF NOT EXISTS volumes (
    id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, size_gb INTEGER NOT NULL, version INTEGER NOT NULL, manifest TEXT,
    used_bytes INTEGER NOT NULL, stored_bytes INTEGER NOT NULL, saved_at TEXT, created_at TEXT NOT NULL,
    created_ms INTEGER NOT NULL, billed_until_ms INTEGER NOT NULL, delete_at_ms INTEGER)`;
  // attachments.ts: one row per volume mounted in an instance, from its launch until its host reports it destroyed.
  sql`CREATE TABLE IF NOT EXISTS volume_attachments (
    volume_id TEXT NOT NULL, instance_id TEXT NOT NULL, path TEXT NOT NULL, read_only INTEGER NOT NULL,
    PRIMARY KEY (volume_id, instance_id))`;
  sql`CREATE INDEX IF NOT EXISTS volume_attachments_by_instance ON volume_attachments (instance_id)`;
  // snapshots.ts: each keeps its version's manifest (null: version 0, empty) and so its chunks.
  sql`CREATE TABLE IF NOT EXISTS volume_snapshots (
    id TEXT PRIMARY KEY, volume_id TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL, manifest TEXT,
    stored_bytes INTEGER NOT NULL, created_at TEXT NOT NULL)`;
  sql`CREATE INDEX IF NOT EXISTS volume_snapshots_by_volume ON volume_snapshots (volume_id, created_at)`;
  // chunk-refs.ts: the chunks each kept manifest (a latest version's, a snapshot's) names, each once.
  sql`CREATE TABLE IF NOT EXISTS volume_chunk_refs (
    volume_id TEXT NOT NULL, manifest TEXT NOT NULL, hash TEXT NOT NULL, size INTEGER NOT NULL,
    PRIMARY KEY (volume_id, manifest, hash))`;
  sql`CREATE INDEX IF NOT EXISTS volume_chunk_refs_by_hash ON volume_chunk_refs (volume_id, hash)`;
  // garbage.ts: objects (or, `prefix` 1, whole prefixes) of the bucket to delete, until they are.
  sql`CREATE TABLE IF NOT EXISTS volume_garbage (
    key TEXT PRIMARY KEY, volume_id TEXT NOT NULL, prefix INTEGER NOT NULL, attempts INTEGER NOT NULL, next_ms INTEGER NOT NULL)`;
  // orphan-sweep.ts: when the volume's prefix was last swept for objects nothing names (null: never, due a day after created_ms).
  addColumnIfMissing(sql, "volumes", "swept_ms", "INTEGER");
  // The volumes an instance was launched with, as its object shows them (attachments.ts).
  addColumnIfMissing(sql, "instances", "volumes", "TEXT NOT NULL DEFAULT '[]'");
  // An instance row removed (a launch no host took, a destroyed instance forgotten) holds no volume.
  sql`CREATE TRIGGER IF NOT EXISTS volume_attachments_end AFTER DELETE ON instances BEGIN
    DELETE FROM volume_attachments WHERE instance_id = OLD.id;
  END`;
}
