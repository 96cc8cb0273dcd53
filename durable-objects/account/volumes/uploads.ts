// Resumable uploads of one file into a volume with no instance (the files route's parts): the state
// of each (its path, the bytes staged, the chunks so far) lives here, while its bytes went from the
// Worker to the bucket. A part is appended only at the upload's staged size, and its chunks are kept
// from the volume's garbage and its orphan sweep (chunk-refs.ts counts them kept) until the upload
// ends: in the version its final part commits, or forgotten an hour after it was last touched, its
// chunks nothing else keeps then deleted. A completed upload's id answers for that hour too, so a
// final part sent again (its answer lost) is told the file is written rather than starting afresh.
import { clock } from "../../../core/clock.ts";
import { fail, type Failure, type Ok } from "../../../core/errors.ts";
import { chunkName, volumeObjectKey } from "../../../protocol/volumes.ts";
import {
  VOLUME_UPLOAD_IDLE_MS, type VolumeUploadAppended, type VolumeUploadDone, type VolumeUploadPart, type VolumeUploadState,
} from "../../contracts/volume-uploads.ts";
import type { VolumeCommitResult } from "../../contracts/volumes.ts";
import type { AlarmCapability } from "../../outbox/single-alarm.ts";
import type { Sql } from "../../sql.ts";
import { isKeptChunk } from "./chunk-refs.ts";
import type { VolumeCommits } from "./commits.ts";
import type { VolumeParts } from "./volume-parts.ts";
import type { VolumeRow } from "./volume-rows.ts";
import type { VolumeStore } from "./volume-store.ts";

/** How many chunks a part's check asks the bucket about at once. */
const HEADS_AT_ONCE = 32;

interface UploadRow {
  volume_id: string;
  upload_id: string;
  path: string;
  staged_bytes: number;
  bytes_sent: number;
  touched_ms: number;
  written: number;
}

/** The uploads' tables (account/schema.ts creates them with the rest): read and written here, and by chunk-refs.ts's kept chunks. */
export function createVolumeUploadSchema(sql: Sql): void {
  // `written` 1: the final part made the file a version; the row stays as the id's answer until it is forgotten.
  sql`CREATE TABLE IF NOT EXISTS volume_uploads (
    volume_id TEXT NOT NULL, upload_id TEXT NOT NULL, path TEXT NOT NULL, staged_bytes INTEGER NOT NULL, bytes_sent INTEGER NOT NULL,
    touched_ms INTEGER NOT NULL, written INTEGER NOT NULL, PRIMARY KEY (volume_id, upload_id))`;
  // The chunks of an upload not yet written, in the file's order.
  sql`CREATE TABLE IF NOT EXISTS volume_upload_chunks (
    volume_id TEXT NOT NULL, upload_id TEXT NOT NULL, position INTEGER NOT NULL, hash TEXT NOT NULL, size INTEGER NOT NULL,
    PRIMARY KEY (volume_id, upload_id, position))`;
  sql`CREATE INDEX IF NOT EXISTS volume_upload_chunks_by_hash ON volume_upload_chunks (volume_id, hash)`;
}

const staged = (size: number) => ({ "Upload-Offset": String(size) });

export class VolumeUploads implements AlarmCapability {
  private readonly parts: VolumeParts;
  private readonly store: VolumeStore;
  private readonly commits: VolumeCommits;

  constructor(parts: VolumeParts, store: VolumeStore, commits: VolumeCommits) {
    this.parts = parts;
    this.store = store;
    this.commits = commits;
  }

  /** Where upload `uploadId` of the file `path` stands in the volume, and what the route needs of the volume. */
  state(idOrName: string, uploadId: string, path: string): Ok<VolumeUploadState> | Failure {
    const found = this.store.content(idOrName);
    if (!found.ok) return found;
    const { content } = found;
    const row = this.live(content.volume_id, uploadId);
    if (row && row.path !== path) return otherPath(row, path);
    return {
      ok: true, content, offset: row?.staged_bytes ?? 0, written: row?.written ? row.staged_bytes : null,
      others_bytes: this.othersBytes(content.volume_id, uploadId),
    };
  }

  /**
   * Appends a part's chunks, stored by the route, if its offset is the staged size and the volume's
   * uploads stay within its size. A chunk that nothing kept when the route skipped or stored it may
   * have been collected since: each such is asked of the bucket, under the volume's lock (collections
   * take it too), and once appended nothing deletes it. A refused part's own chunks that nothing
   * keeps are garbage at once.
   */
  append(part: VolumeUploadPart): Promise<VolumeUploadAppended> {
    return this.parts.locks.run(part.volume_id, async () => {
      const { sql } = this.parts;
      const volume = sql<VolumeRow>`SELECT * FROM volumes WHERE id = ${part.volume_id}`[0];
      if (!volume) return fail("not_found", `no volume ${part.volume_id} in this account`);
      const answer = await this.appended(volume, part);
      if (!answer.ok) {
        this.parts.transaction(() => this.forgetChunks(volume.id, part.stored));
        await this.parts.garbage.collectLocked(volume.id);
      }
      return answer;
    });
  }

  /**
   * The final part's version, made by the route from the upload's chunks: committed as the files
   * route's are, then the upload is written (its chunks now kept by the version). Refused, the upload
   * stays staged whole, for its final part to be sent again.
   */
  async complete(done: VolumeUploadDone): Promise<VolumeCommitResult> {
    const row = this.live(done.volume_id, done.upload_id);
    if (!row) return fail("conflict", `upload ${done.upload_id}: nothing is staged (an upload untouched for an hour is forgotten): send the file again from offset 0`, staged(0));
    const committed = await this.commits.commit({ volume_id: done.volume_id, instance_id: null, base_version: done.base_version, manifest: done.manifest, bytes_sent: row.bytes_sent });
    if (!committed.ok) return committed;
    await this.parts.locks.run(done.volume_id, async () => {
      this.parts.transaction(() => {
        const { sql } = this.parts;
        sql`UPDATE volume_uploads SET written = 1, touched_ms = ${clock.now()} WHERE volume_id = ${done.volume_id} AND upload_id = ${done.upload_id}`;
        this.releaseChunks(done.volume_id, done.upload_id);
      });
      await this.parts.garbage.collectLocked(done.volume_id);
    });
    return committed;
  }

  nextAlarmMs(): number | null {
    const at = this.parts.sql<{ at: number | null }>`SELECT MIN(touched_ms) AS at FROM volume_uploads`[0]?.at ?? null;
    return at === null ? null : at + VOLUME_UPLOAD_IDLE_MS;
  }

  /** Forgets every upload untouched for VOLUME_UPLOAD_IDLE_MS; the chunks nothing else keeps are deleted. */
  async onAlarm(nowMs: number): Promise<void> {
    const { sql } = this.parts;
    const idle = nowMs - VOLUME_UPLOAD_IDLE_MS;
    for (const { volume_id } of sql<{ volume_id: string }>`SELECT DISTINCT volume_id FROM volume_uploads WHERE touched_ms <= ${idle}`) {
      await this.parts.locks.run(volume_id, async () => {
        this.parts.transaction(() => {
          for (const row of sql<UploadRow>`SELECT * FROM volume_uploads WHERE volume_id = ${volume_id} AND touched_ms <= ${idle}`) this.forget(row);
        });
        await this.parts.garbage.collectLocked(volume_id);
      });
    }
  }

  /** Holding the volume's lock: the part appended, or why not (with the staged size to resume from). */
  private async appended(volume: VolumeRow, part: VolumeUploadPart): Promise<VolumeUploadAppended> {
    const { sql } = this.parts;
    let row = sql<UploadRow>`SELECT * FROM volume_uploads WHERE volume_id = ${volume.id} AND upload_id = ${part.upload_id}`[0];
    if (row && this.idle(row)) {
      this.parts.transaction(() => this.forget(row!));
      row = undefined;
    }
    if (row?.written) {
      return fail("conflict", `upload ${part.upload_id} is complete: its ${row.staged_bytes} bytes were written to the volume (a new file needs a new upload id)`, staged(row.staged_bytes));
    }
    if (row && row.path !== part.path) return otherPath(row, part.path);
    const before = row?.staged_bytes ?? 0;
    if (part.offset !== before) {
      return fail("conflict", `upload ${part.upload_id} has ${before} bytes staged, not ${part.offset}: send the part from offset ${before}`, staged(before));
    }
    const size = part.offset + part.chunks.reduce((sum, chunk) => sum + chunk.size, 0);
    const others = this.othersBytes(volume.id, part.upload_id);
    const maxBytes = volume.size_gb * 1e9;
    if (others + size > maxBytes) {
      return fail("payload_too_large",
        `size_gb: the volume's uploads would stage ${others + size} bytes together, over its size_gb (${volume.size_gb} GB, ${maxBytes} bytes); ` +
        `upload ${part.upload_id} has ${before} bytes staged: grow the volume (PATCH size_gb), then send the part again`, staged(before));
    }
    const missing = await this.missingChunk(volume.id, part.chunks);
    if (missing !== null) {
      return fail("conflict", `chunk ${missing} of the part was deleted while it was sent (a version freed it): send the part again from offset ${before}`, staged(before));
    }
    const nowMs = clock.now();
    const accountId = this.parts.accountId();
    this.parts.transaction(() => {
      sql`INSERT INTO volume_uploads (volume_id, upload_id, path, staged_bytes, bytes_sent, touched_ms, written)
          VALUES (${volume.id}, ${part.upload_id}, ${part.path}, ${size}, ${part.bytes_sent}, ${nowMs}, 0)
          ON CONFLICT (volume_id, upload_id) DO UPDATE SET staged_bytes = ${size}, bytes_sent = bytes_sent + ${part.bytes_sent}, touched_ms = ${nowMs}`;
      const first = sql<{ n: number }>`SELECT COUNT(*) AS n FROM volume_upload_chunks WHERE volume_id = ${volume.id} AND upload_id = ${part.upload_id}`[0]!.n;
      part.chunks.forEach((chunk, i) => {
        sql`INSERT INTO volume_upload_chunks (volume_id, upload_id, position, hash, size) VALUES (${volume.id}, ${part.upload_id}, ${first + i}, ${chunk.hash}, ${chunk.size})`;
      });
      // Queued as garbage before this part stored them again: kept now.
      this.parts.garbage.keep(part.chunks.map((chunk) => volumeObjectKey(accountId, volume.id, chunkName(chunk.hash))));
    });
    const chunks = part.final
      ? sql<{ hash: string }>`SELECT hash FROM volume_upload_chunks WHERE volume_id = ${volume.id} AND upload_id = ${part.upload_id} ORDER BY position`.map((chunk) => chunk.hash)
      : null;
    return { ok: true, offset: size, chunks };
  }

  /** The first of `chunks` that nothing keeps and the bucket does not hold at its size; null when there is none. */
  private async missingChunk(volumeId: string, chunks: VolumeUploadPart["chunks"]): Promise<string | null> {
    const accountId = this.parts.accountId();
    const unchecked = chunks.filter((chunk) => !isKeptChunk(this.parts.sql, volumeId, chunk.hash));
    for (let i = 0; i < unchecked.length; i += HEADS_AT_ONCE) {
      const batch = unchecked.slice(i, i + HEADS_AT_ONCE);
      const heads = await Promise.all(batch.map((chunk) => this.parts.env.VOLUMES.head(volumeObjectKey(accountId, volumeId, chunkName(chunk.hash)))));
      const wrong = batch.find((chunk, j) => heads[j]?.size !== chunk.size);
      if (wrong) return wrong.hash;
    }
    return null;
  }

  /** The upload unless it was forgotten (or is due to be). */
  private live(volumeId: string, uploadId: string): UploadRow | undefined {
    const row = this.parts.sql<UploadRow>`SELECT * FROM volume_uploads WHERE volume_id = ${volumeId} AND upload_id = ${uploadId}`[0];
    return row && !this.idle(row) ? row : undefined;
  }

  private idle(row: UploadRow): boolean {
    return clock.now() - row.touched_ms >= VOLUME_UPLOAD_IDLE_MS;
  }

  /** The bytes the volume's uploads other than `uploadId` stage, written ones aside. */
  private othersBytes(volumeId: string, uploadId: string): number {
    const idleBefore = clock.now() - VOLUME_UPLOAD_IDLE_MS;
    return this.parts.sql<{ bytes: number | null }>`SELECT SUM(staged_bytes) AS bytes FROM volume_uploads
      WHERE volume_id = ${volumeId} AND upload_id <> ${uploadId} AND written = 0 AND touched_ms > ${idleBefore}`[0]?.bytes ?? 0;
  }

  /** Inside a transaction: the upload is gone, and the chunks it alone kept are garbage. */
  private forget(row: UploadRow): void {
    this.releaseChunks(row.volume_id, row.upload_id);
    this.parts.sql`DELETE FROM volume_uploads WHERE volume_id = ${row.volume_id} AND upload_id = ${row.upload_id}`;
  }

  /** Inside a transaction: the upload keeps its chunks no longer, and those nothing else keeps are garbage. */
  private releaseChunks(volumeId: string, uploadId: string): void {
    const { sql } = this.parts;
    const hashes = sql<{ hash: string }>`SELECT DISTINCT hash FROM volume_upload_chunks WHERE volume_id = ${volumeId} AND upload_id = ${uploadId}`.map((row) => row.hash);
    sql`DELETE FROM volume_upload_chunks WHERE volume_id = ${volumeId} AND upload_id = ${uploadId}`;
    this.forgetChunks(volumeId, hashes);
  }

  /** Inside a transaction: the chunks of `hashes` that nothing keeps are garbage (none of a deleted volume, whose prefix goes whole). */
  private forgetChunks(volumeId: string, hashes: string[]): void {
    const { sql } = this.parts;
    if (sql`SELECT 1 FROM volumes WHERE id = ${volumeId}`.length === 0) return;
    const accountId = this.parts.accountId();
    const freed = hashes.filter((hash) => !isKeptChunk(sql, volumeId, hash));
    this.parts.garbage.queue(volumeId, freed.map((hash) => volumeObjectKey(accountId, volumeId, chunkName(hash))));
  }
}

const otherPath = (row: UploadRow, path: string): Failure =>
  fail("conflict", `path: upload ${row.upload_id} is of /${row.path}, not /${path} (a new file needs a new upload id)`, staged(row.staged_bytes));
