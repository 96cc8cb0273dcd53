// Objects of the bucket no kept manifest names any more (an old version's unique chunks and its
// manifest, a deleted snapshot's, a deleted volume's whole prefix): queued in the transaction that
// freed them, deleted right after it, and retried on the alarm until R2 has deleted them.
import { clock } from "../../../core/clock.ts";
import type { Env } from "../../../core/env.ts";
import { errorText, log } from "../../../core/log.ts";
import { chunkName, volumeObjectKey } from "../../../protocol/volumes.ts";
import type { AlarmCapability } from "../../outbox/single-alarm.ts";
import type { Sql } from "../../sql.ts";
import { releaseManifest } from "./chunk-refs.ts";
import type { VolumeLocks } from "./volume-locks.ts";

/** R2 deletes at most this many keys a call, and lists at most this many a page. */
const R2_BATCH = 1000;
const RETRY_MS = [60_000, 5 * 60_000, 30 * 60_000, 3_600_000];

interface GarbageRow {
  key: string;
  volume_id: string;
  prefix: number;
  attempts: number;
}

export class VolumeGarbage implements AlarmCapability {
  private readonly sql: Sql;
  private readonly env: Env;
  private readonly locks: VolumeLocks;
  private readonly backstop: () => void;

  /** `backstop`: sets the alarm with the queueing's own writes (SingleAlarm.backstop), so an object reset before the collection still does it. */
  constructor(sql: Sql, env: Env, locks: VolumeLocks, backstop: () => void) {
    this.sql = sql;
    this.env = env;
    this.locks = locks;
    this.backstop = backstop;
  }

  /** Inside the transaction that frees them: objects (full keys) of volume `volumeId` to delete. */
  queue(volumeId: string, keys: string[]): void {
    for (const key of keys) {
      this.sql`INSERT OR IGNORE INTO volume_garbage (key, volume_id, prefix, attempts, next_ms) VALUES (${key}, ${volumeId}, 0, 0, ${clock.now()})`;
    }
    if (keys.length > 0) this.backstop();
  }

  /** Inside a transaction, once the latest version or a snapshot no longer names `manifest`: it and its chunks nothing else keeps become garbage. */
  dropManifest(accountId: string, volumeId: string, manifest: string): void {
    const freed = releaseManifest(this.sql, volumeId, manifest);
    if (freed === null) return;
    this.queue(volumeId, [manifest, ...freed.map(chunkName)].map((name) => volumeObjectKey(accountId, volumeId, name)));
  }

  /** Inside the transaction that deletes the volume (or gives up making it): everything under `prefix`. */
  queuePrefix(volumeId: string, prefix: string): void {
    this.sql`DELETE FROM volume_garbage WHERE volume_id = ${volumeId}`;
    this.sql`INSERT INTO volume_garbage (key, volume_id, prefix, attempts, next_ms) VALUES (${prefix}, ${volumeId}, 1, 0, ${clock.now()})`;
    this.backstop();
  }

  /** Inside a commit's transaction: objects its manifest names again are no longer garbage. */
  keep(keys: string[]): void {
    for (const key of keys) this.sql`DELETE FROM volume_garbage WHERE key = ${key} AND prefix = 0`;
  }

  nextAlarmMs(): number | null {
    return this.sql<{ at: number | null }>`SELECT MIN(next_ms) AS at FROM volume_garbage`[0]?.at ?? null;
  }

  async onAlarm(nowMs: number): Promise<void> {
    const volumes = this.sql<{ volume_id: string }>`SELECT DISTINCT volume_id FROM volume_garbage WHERE next_ms <= ${nowMs}`;
    for (const { volume_id } of volumes) await this.locks.run(volume_id, () => this.collectLocked(volume_id));
  }

  /** Deletes the volume's garbage now; the caller holds the volume's lock. What fails stays queued for the alarm. */
  async collectLocked(volumeId: string): Promise<void> {
    const rows = this.sql<GarbageRow>`SELECT key, volume_id, prefix, attempts FROM volume_garbage WHERE volume_id = ${volumeId}`;
    const objects = rows.filter((row) => row.prefix === 0);
    for (let i = 0; i < objects.length; i += R2_BATCH) {
      const batch = objects.slice(i, i + R2_BATCH);
      await this.settle(batch, () => this.env.VOLUMES.delete(batch.map((row) => row.key)));
    }
    for (const row of rows.filter((row) => row.prefix === 1)) await this.settle([row], () => this.deletePrefix(row.key));
  }

  private async deletePrefix(prefix: string): Promise<void> {
    for (;;) {
      const page = await this.env.VOLUMES.list({ prefix, limit: R2_BATCH });
      if (page.objects.length === 0) return;
      await this.env.VOLUMES.delete(page.objects.map((object) => object.key));
    }
  }

  private async settle(rows: GarbageRow[], deletion: () => Promise<void>): Promise<void> {
    try {
      await deletion();
      for (const row of rows) this.sql`DELETE FROM volume_garbage WHERE key = ${row.key} AND attempts = ${row.attempts}`;
    } catch (error) {
      log("warn", "volume_garbage_retry", { keys: rows.length, error: errorText(error) });
      const nextMs = clock.now() + RETRY_MS[Math.min(rows[0]!.attempts, RETRY_MS.length - 1)]!;
      for (const row of rows) this.sql`UPDATE volume_garbage SET attempts = attempts + 1, next_ms = ${nextMs} WHERE key = ${row.key}`;
    }
  }
}
