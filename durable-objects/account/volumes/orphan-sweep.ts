// Objects under a volume's prefix that no kept manifest names and no commit ever will: what a save
// that died before its commit uploaded, the chunks of a files PUT refused or cut off before its
// commit, an upload abandoned midway. Nothing names them, so no version's drop frees them
// (garbage.ts): once a day per volume the alarm lists the prefix and queues for deletion every
// object that no kept manifest names and that was uploaded more than a day ago, as a save or an
// upload still in flight may yet commit a younger one. Stored bytes are unchanged: they count only
// the chunks kept manifests name.
import { errorText, log } from "../../../core/log.ts";
import { volumeObjectKey, volumePrefix } from "../../../protocol/volumes.ts";
import type { AlarmCapability } from "../../outbox/single-alarm.ts";
import type { Sql } from "../../sql.ts";
import { isKeptChunk } from "./chunk-refs.ts";
import type { VolumeParts } from "./volume-parts.ts";

/** How often each volume is swept, and how old an object must be to be taken for an orphan. */
export const ORPHAN_SWEEP_MS = 86_400_000;
/** R2 lists at most this many keys a page. */
const LIST_PAGE = 1000;

export class VolumeSweep implements AlarmCapability {
  private readonly parts: VolumeParts;

  constructor(parts: VolumeParts) {
    this.parts = parts;
  }

  nextAlarmMs(): number | null {
    return this.parts.sql<{ at: number | null }>`SELECT MIN(COALESCE(swept_ms, created_ms)) + ${ORPHAN_SWEEP_MS} AS at FROM volumes`[0]?.at ?? null;
  }

  /**
   * Sweeps the volume swept longest ago, if its day has come: one a ring, so that one alarm's R2
   * calls are a single volume's (a full 10 TB volume lists about 1,200 pages); the alarm rings again
   * at once for the next. A sweep that fails waits for its next day all the same.
   */
  async onAlarm(nowMs: number): Promise<void> {
    const [due] = this.parts.sql<{ id: string }>`SELECT id FROM volumes WHERE COALESCE(swept_ms, created_ms) <= ${nowMs - ORPHAN_SWEEP_MS}
      ORDER BY COALESCE(swept_ms, created_ms), id LIMIT 1`;
    if (!due) return;
    this.parts.sql`UPDATE volumes SET swept_ms = ${nowMs} WHERE id = ${due.id}`;
    try {
      await this.parts.locks.run(due.id, () => this.sweepLocked(due.id, nowMs));
    } catch (error) {
      log("warn", "volume_sweep_failed", { volume_id: due.id, error: errorText(error) });
    }
  }

  /**
   * Holding the volume's lock, so no commit checks its chunks meanwhile; each page's orphans are
   * judged in the transaction that queues them, then deleted as garbage is before the next page is
   * read (a save of a whole volume that never committed is a million chunks).
   */
  private async sweepLocked(volumeId: string, nowMs: number): Promise<void> {
    const { env, sql, garbage } = this.parts;
    const accountId = this.parts.accountId();
    const prefix = volumePrefix(accountId, volumeId);
    let cursor: string | undefined;
    do {
      const page = await env.VOLUMES.list({ prefix, limit: LIST_PAGE, cursor });
      const old = page.objects.filter((object) => object.uploaded.getTime() < nowMs - ORPHAN_SWEEP_MS).map((object) => object.key.slice(prefix.length));
      if (old.length > 0) {
        this.parts.transaction(() => {
          if (sql`SELECT 1 FROM volumes WHERE id = ${volumeId}`.length === 0) return;
          garbage.queue(volumeId, old.filter((name) => !isKept(sql, volumeId, name)).map((name) => volumeObjectKey(accountId, volumeId, name)));
        });
        await garbage.collectLocked(volumeId);
      }
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor !== undefined);
  }
}

/** Whether the object `name` of the volume is its latest version's manifest, a snapshot's, or a chunk one of those or an upload in progress names. */
function isKept(sql: Sql, volumeId: string, name: string): boolean {
  if (name.startsWith("chunks/")) return isKeptChunk(sql, volumeId, name.slice("chunks/".length));
  return sql`SELECT 1 FROM volumes WHERE id = ${volumeId} AND manifest = ${name}
             UNION ALL SELECT 1 FROM volume_snapshots WHERE volume_id = ${volumeId} AND manifest = ${name}`.length > 0;
}
