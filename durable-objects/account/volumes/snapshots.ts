// A volume's snapshots: each names the manifest of the version it was taken of, so that version's
// chunks stay stored while it exists (chunk-refs.ts), whatever the volume saves after.
import { clock, iso } from "../../../core/clock.ts";
import { fail, type Failure, type Ok } from "../../../core/errors.ts";
import { newSnapshotId } from "../../../core/ids.ts";
import { SNAPSHOT_ID_PATTERN } from "../../../protocol/volumes.ts";
import { MAX_VOLUME_SNAPSHOTS, type SnapshotSource, type SnapshotView } from "../../contracts/volumes.ts";
import { chunkBytes } from "./chunk-refs.ts";
import { chargeStorageUntil } from "./storage-charges.ts";
import { toSnapshotView, type SnapshotRow, type VolumeRow } from "./volume-rows.ts";
import type { VolumeParts } from "./volume-parts.ts";
import { recordAudit } from "../audit/audit-log.ts";

export class VolumeSnapshots {
  private readonly parts: VolumeParts;

  constructor(parts: VolumeParts) {
    this.parts = parts;
  }

  /** Newest first. */
  list(volume: VolumeRow): SnapshotView[] {
    return this.parts.sql<SnapshotRow>`SELECT * FROM volume_snapshots WHERE volume_id = ${volume.id} ORDER BY created_at DESC, id DESC`.map(toSnapshotView);
  }

  /** A snapshot of the latest version; `name` defaults to `v<version>`. */
  create(volume: VolumeRow, name: string | undefined): Ok<{ snapshot: SnapshotView }> | Failure {
    const { sql } = this.parts;
    return this.parts.transaction(() => {
      const [count] = sql<{ n: number }>`SELECT COUNT(*) AS n FROM volume_snapshots WHERE volume_id = ${volume.id}`;
      if (count!.n >= MAX_VOLUME_SNAPSHOTS) return fail("conflict", `volume ${volume.name} has ${MAX_VOLUME_SNAPSHOTS} snapshots, the most it keeps; delete one first`);
      const row: SnapshotRow = {
        id: newSnapshotId(), volume_id: volume.id, name: name ?? `v${volume.version}`, version: volume.version, manifest: volume.manifest,
        stored_bytes: volume.manifest === null ? 0 : chunkBytes(sql, volume.id, volume.manifest), created_at: iso(clock.now()),
      };
      sql`INSERT INTO volume_snapshots (id, volume_id, name, version, manifest, stored_bytes, created_at)
          VALUES (${row.id}, ${row.volume_id}, ${row.name}, ${row.version}, ${row.manifest}, ${row.stored_bytes}, ${row.created_at})`;
      recordAudit(sql, { action: "volume.snapshot", target: { type: "volume", id: volume.id }, detail: `${volume.name}: snapshot ${row.name} (${row.id})` });
      return { ok: true, snapshot: toSnapshotView(row) };
    });
  }

  /** Deletes it; the chunks only it kept are garbage then (collected by the caller). */
  delete(volume: VolumeRow, snapshotId: string): Ok<object> | Failure {
    const { sql } = this.parts;
    return this.parts.transaction(() => {
      const [row] = sql<SnapshotRow>`DELETE FROM volume_snapshots WHERE id = ${snapshotId} AND volume_id = ${volume.id} RETURNING *`;
      if (!row) return noSnapshot(snapshotId, volume);
      // Its stored bytes may shrink: the time before is charged at the size it had.
      chargeStorageUntil(sql, this.parts.env, volume.id, clock.now());
      if (row.manifest !== null) this.parts.garbage.dropManifest(this.parts.accountId(), volume.id, row.manifest);
      sql`UPDATE volumes SET stored_bytes = ${chunkBytes(sql, volume.id)} WHERE id = ${volume.id}`;
      recordAudit(sql, { action: "volume.delete_snapshot", target: { type: "volume", id: volume.id }, detail: `${volume.name}: snapshot ${row.name} (${row.id})` });
      return { ok: true };
    });
  }

  /** Where snapshot `snapshotId` of any of the account's volumes is, for a new volume to copy it. */
  source(snapshotId: string): Ok<{ source: SnapshotSource }> | Failure {
    const { sql } = this.parts;
    const row = SNAPSHOT_ID_PATTERN.test(snapshotId) ? sql<SnapshotRow>`SELECT * FROM volume_snapshots WHERE id = ${snapshotId}`[0] : undefined;
    if (!row) return fail("not_found", `no snapshot ${snapshotId} in this account`);
    const [volume] = sql<{ size_gb: number }>`SELECT size_gb FROM volumes WHERE id = ${row.volume_id}`;
    return { ok: true, source: { account_id: this.parts.accountId(), volume_id: row.volume_id, manifest: row.manifest, version: row.version, size_gb: volume!.size_gb } };
  }
}

const noSnapshot = (snapshotId: string, volume: VolumeRow): Failure => fail("not_found", `no snapshot ${snapshotId} of volume ${volume.name}`);
