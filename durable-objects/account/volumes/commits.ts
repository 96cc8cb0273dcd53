// A save becomes the volume's next version here, and only here: its manifest and chunks are checked
// in the bucket (stored-content.ts), then one transaction records the version if the volume is still
// at the save's base version and the saver still may write it; the objects the previous version alone
// kept are deleted after. A save that dies midway, or loses to another, leaves the previous version
// the latest, whole. A host's failed save is recorded for its instance.
import { clock, iso } from "../../../core/clock.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import { chunkName, volumeObjectKey, VOLUME_ID_PATTERN } from "../../../protocol/volumes.ts";
import type { VolumeCommitRequest, VolumeCommitResult, VolumeSaveFailure } from "../../contracts/volumes.ts";
import { addEvent } from "../instances/instance-row.ts";
import { recordWebhookEvent } from "../webhooks/webhook-events.ts";
import { isAttachedReadWrite, readWriteHolder } from "./attachments.ts";
import { chunkBytes, keepManifest } from "./chunk-refs.ts";
import { chargeStorageUntil } from "./storage-charges.ts";
import { readManifest, sameContent, storedContent, type StoredContent } from "./stored-content.ts";
import { bytesText, type VolumeRow } from "./volume-rows.ts";
import type { VolumeParts } from "./volume-parts.ts";

export class VolumeCommits {
  private readonly parts: VolumeParts;

  constructor(parts: VolumeParts) {
    this.parts = parts;
  }

  /** `request.instance_id`: the host's instance that saved it, or null for the files route. */
  async commit(request: VolumeCommitRequest): Promise<VolumeCommitResult> {
    const again = this.committedBefore(request);
    if (again) return again;
    const first = this.admitted(request);
    if (!first.ok) return first;
    const { volume } = first;
    return this.parts.locks.run(volume.id, async () => {
      const checked = await storedContent(this.place(volume.id), request.manifest, volume.size_gb * 1e9);
      if (!checked.ok) return checked;
      const result = (await this.unchanged(volume, request.manifest, checked.content))
        ? this.keepUnchanged(volume, request.manifest)
        : this.parts.transaction(() => this.record(request, checked.content));
      await this.parts.garbage.collectLocked(volume.id);
      return result;
    });
  }

  /** A host's save that could not be made: an event and the status message of its instance, and `volume.save_failed`. */
  saveFailed(failure: VolumeSaveFailure): void {
    const { sql } = this.parts;
    const volume = sql<VolumeRow>`SELECT * FROM volumes WHERE id = ${failure.volume_id}`[0];
    const attached = volume && sql`SELECT 1 FROM volume_attachments WHERE volume_id = ${volume.id} AND instance_id = ${failure.instance_id}`.length > 0;
    if (!volume || !attached) return;
    const nowMs = clock.now();
    this.parts.transaction(() => {
      const stays = volume.version === 0 ? "it stays empty" : `version ${volume.version} stays the latest`;
      addEvent(sql, failure.instance_id, `Volume ${volume.name} not saved: ${failure.reason}; ${stays}`, iso(nowMs));
      sql`UPDATE instances SET status_message = ${`volume ${volume.name} not saved: ${failure.reason}`} WHERE id = ${failure.instance_id}`;
      recordWebhookEvent(sql, "volume.save_failed", { volume_id: volume.id, reason: failure.reason }, nowMs);
    });
  }

  /**
   * The same save sent again, its answer lost on the way back (a dropped connection): the version it
   * made, where a refusal for the moved base would leave the saver unable ever to save again. A
   * manifest's name is fresh for every save, so the name says it is the same one.
   */
  private committedBefore(request: VolumeCommitRequest): VolumeCommitResult | null {
    const [volume] = this.parts.sql<{ version: number; manifest: string | null }>`SELECT version, manifest FROM volumes WHERE id = ${request.volume_id}`;
    return volume && volume.manifest === request.manifest && volume.version === request.base_version + 1 ? { ok: true, version: volume.version, changed: true } : null;
  }

  /** The volume, if the save may be committed as far as can be told before its objects are read. */
  private admitted(request: VolumeCommitRequest): { ok: true; volume: VolumeRow } | Failure {
    const volume = VOLUME_ID_PATTERN.test(request.volume_id) ? this.parts.sql<VolumeRow>`SELECT * FROM volumes WHERE id = ${request.volume_id}`[0] : undefined;
    if (!volume) return fail("not_found", `no volume ${request.volume_id} in this account`);
    return this.writerRefusal(volume, request) ?? { ok: true, volume };
  }

  /** Whether the saver may write the volume now, from `base_version`. */
  private writerRefusal(volume: VolumeRow, request: VolumeCommitRequest): Failure | null {
    const { sql } = this.parts;
    if (request.instance_id !== null && !isAttachedReadWrite(sql, volume.id, request.instance_id)) {
      return fail("conflict", `instance ${request.instance_id} does not hold volume ${volume.name} read-write`);
    }
    const holder = request.instance_id === null ? readWriteHolder(sql, volume.id) : null;
    if (holder) return fail("conflict", `volume ${volume.name} is attached read-write to instance ${holder}: only that instance writes it until it is destroyed`);
    if (volume.version !== request.base_version) {
      return fail("conflict", `base_version: volume ${volume.name} is at version ${volume.version}, not ${request.base_version}; this save is not committed`);
    }
    return null;
  }

  /** Whether the save holds what the latest version holds. */
  private async unchanged(volume: VolumeRow, manifest: string, content: StoredContent): Promise<boolean> {
    if (volume.manifest === null) return content.manifest.entries.length === 0;
    if (volume.manifest === manifest) return true;
    const latest = await readManifest(this.place(volume.id), volume.manifest);
    return latest.ok && sameContent(latest.manifest, content.manifest);
  }

  /** No new version: the save's own manifest, a copy of the latest, is garbage. */
  private keepUnchanged(volume: VolumeRow, manifest: string): VolumeCommitResult {
    if (manifest !== volume.manifest) {
      this.parts.transaction(() => this.parts.garbage.queue(volume.id, [volumeObjectKey(this.parts.accountId(), volume.id, manifest)]));
    }
    return { ok: true, version: volume.version, changed: false };
  }

  /** Inside the transaction: the next version, if the volume is still where the save began. */
  private record(request: VolumeCommitRequest, content: StoredContent): VolumeCommitResult {
    const { sql } = this.parts;
    const volume = sql<VolumeRow>`SELECT * FROM volumes WHERE id = ${request.volume_id}`[0];
    if (!volume) return fail("not_found", `no volume ${request.volume_id} in this account`);
    const again = this.committedBefore(request);
    if (again) return again;
    const refused = this.writerRefusal(volume, request);
    if (refused) return refused;
    const accountId = this.parts.accountId();
    const version = volume.version + 1;
    const nowMs = clock.now();
    // Its stored bytes change: the time before is charged at the size it had.
    chargeStorageUntil(sql, this.parts.env, volume.id, nowMs);
    keepManifest(sql, volume.id, request.manifest, content.chunks);
    this.parts.garbage.keep([request.manifest, ...[...content.chunks.keys()].map(chunkName)].map((name) => volumeObjectKey(accountId, volume.id, name)));
    sql`UPDATE volumes SET version = ${version}, manifest = ${request.manifest}, used_bytes = ${content.bytes}, saved_at = ${iso(nowMs)} WHERE id = ${volume.id}`;
    if (volume.manifest !== null) this.parts.garbage.dropManifest(accountId, volume.id, volume.manifest);
    sql`UPDATE volumes SET stored_bytes = ${chunkBytes(sql, volume.id)} WHERE id = ${volume.id}`;
    if (request.instance_id !== null) {
      addEvent(sql, request.instance_id, `Volume data saved as version ${version}: ${bytesText(request.bytes_sent)} sent (volume ${volume.name})`, iso(nowMs));
      recordWebhookEvent(sql, "volume.saved", { volume_id: volume.id, version, bytes_sent: request.bytes_sent }, nowMs);
    }
    return { ok: true, version, changed: true };
  }

  private place(volumeId: string) {
    return { env: this.parts.env, sql: this.parts.sql, accountId: this.parts.accountId(), volumeId };
  }
}
