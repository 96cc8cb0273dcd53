// The account's volumes as its callers and the files route reach them: create (empty, or holding a
// snapshot's content already copied under the new volume's prefix), list, read, rename and grow,
// delete (with every object under its prefix), save now, snapshots; the commits of saves are
// commits.ts's. The AccountDO hands each call here after checking the caller's credential.
import { clock, iso } from "../../../core/clock.ts";
import { machineOf } from "../../../core/env.ts";
import { fail, type Failure, type Ok } from "../../../core/errors.ts";
import { errorText, log } from "../../../core/log.ts";
import { newVolumeId } from "../../../core/ids.ts";
import { volumePrefix, VOLUME_ID_PATTERN } from "../../../protocol/volumes.ts";
import {
  VOLUME_NAME, VOLUME_SIZE_GB, type NewVolume, type VolumeAnswer, type VolumeCall, type VolumeContent, type VolumeView,
} from "../../contracts/volumes.ts";
import type { InstanceRow } from "../instances/instance-row.ts";
import { freeingStep, mountsNow, readWriteHolder } from "./attachments.ts";
import { chunkBytes, keepManifest } from "./chunk-refs.ts";
import { VolumeSnapshots } from "./snapshots.ts";
import { chargeStorageUntil } from "./storage-charges.ts";
import { storedContent, type StoredContent } from "./stored-content.ts";
import { findVolume, noVolume, toVolumeView, type VolumeRow } from "./volume-rows.ts";
import type { VolumeParts } from "./volume-parts.ts";
import { recordAudit } from "../audit/audit-log.ts";

export class VolumeStore {
  private readonly parts: VolumeParts;
  private readonly snapshots: VolumeSnapshots;

  constructor(parts: VolumeParts) {
    this.parts = parts;
    this.snapshots = new VolumeSnapshots(parts);
  }

  async handle(call: VolumeCall): Promise<VolumeAnswer | Failure> {
    if (call.op === "list") return { ok: true, volumes: this.parts.sql<VolumeRow>`SELECT * FROM volumes ORDER BY created_ms, id`.map((row) => this.view(row)) };
    const volume = findVolume(this.parts.sql, call.volume);
    if (!volume) return noVolume(call.volume);
    switch (call.op) {
      case "get":
        return { ok: true, volume: this.view(volume) };
      case "update":
        return this.update(volume, call);
      case "delete":
        return this.delete(volume);
      case "save":
        return this.save(volume);
      case "snapshots":
        return { ok: true, snapshots: this.snapshots.list(volume) };
      case "snapshot":
        return this.snapshots.create(volume, call.name);
      case "delete_snapshot": {
        const deleted = this.snapshots.delete(volume, call.snapshot_id);
        if (deleted.ok) await this.parts.locks.run(volume.id, () => this.parts.garbage.collectLocked(volume.id));
        return deleted;
      }
    }
  }

  async create(input: NewVolume): Promise<Ok<{ volume: VolumeView }> | Failure> {
    const id = input.id ?? newVolumeId();
    const { from } = input;
    if (!from) return nameRefusal(input.name) ?? sizeRefusal(input.size_gb) ?? this.parts.transaction(() => this.insert(id, input, null));
    return this.parts.locks.run(id, async () => {
      const refused = nameRefusal(input.name) ?? sizeRefusal(input.size_gb) ?? this.takenRefusal(input.name, id);
      const place = { env: this.parts.env, sql: this.parts.sql, accountId: this.parts.accountId(), volumeId: id };
      const checked = refused ?? (await storedContent(place, from.manifest, input.size_gb * 1e9));
      const created = checked.ok ? this.parts.transaction(() => this.insert(id, input, { manifest: from.manifest, content: checked.content })) : checked;
      if (!created.ok && VOLUME_ID_PATTERN.test(id) && this.parts.sql`SELECT 1 FROM volumes WHERE id = ${id}`.length === 0) {
        // What was copied under the id of a volume that is not made goes.
        this.parts.transaction(() => this.parts.garbage.queuePrefix(id, volumePrefix(this.parts.accountId(), id)));
        await this.parts.garbage.collectLocked(id);
      }
      return created;
    });
  }

  snapshotSource(snapshotId: string) {
    return this.snapshots.source(snapshotId);
  }

  /** What the files route needs to read or replace the volume's content. */
  content(idOrName: string): Ok<{ content: VolumeContent }> | Failure {
    const volume = findVolume(this.parts.sql, idOrName);
    if (!volume) return noVolume(idOrName);
    return {
      ok: true,
      content: {
        account_id: this.parts.accountId(), volume_id: volume.id, version: volume.version, manifest: volume.manifest,
        max_bytes: volume.size_gb * 1e9, attached_read_write: readWriteHolder(this.parts.sql, volume.id),
      },
    };
  }

  private view(row: VolumeRow): VolumeView {
    return toVolumeView(this.parts.sql, this.parts.env, row);
  }

  /** Inside a transaction: the new volume, empty or at version 1 with `from`'s content; refused if its name or id was taken meanwhile. */
  private insert(id: string, input: NewVolume, from: { manifest: string; content: StoredContent } | null): Ok<{ volume: VolumeView }> | Failure {
    const { sql } = this.parts;
    const taken = this.takenRefusal(input.name, id);
    if (taken) return taken;
    const nowMs = clock.now();
    const at = iso(nowMs);
    sql`INSERT INTO volumes (id, name, size_gb, version, manifest, used_bytes, stored_bytes, saved_at, created_at, created_ms, billed_until_ms, delete_at_ms)
        VALUES (${id}, ${input.name}, ${input.size_gb}, ${from ? 1 : 0}, ${from?.manifest ?? null}, ${from?.content.bytes ?? 0}, 0,
          ${from ? at : null}, ${at}, ${nowMs}, ${nowMs}, NULL)`;
    if (from) {
      keepManifest(sql, id, from.manifest, from.content.chunks);
      sql`UPDATE volumes SET stored_bytes = ${chunkBytes(sql, id)} WHERE id = ${id}`;
    }
    recordAudit(sql, { action: "volume.create", target: { type: "volume", id }, detail: `${input.name}, ${input.size_gb} GB${from ? ", from a snapshot" : ""}` });
    return { ok: true, volume: this.view(findVolume(sql, id)!) };
  }

  private takenRefusal(name: string, id: string | undefined): Failure | null {
    const { sql } = this.parts;
    if (sql`SELECT 1 FROM volumes WHERE name = ${name}`.length > 0) return fail("conflict", `name: the account already has a volume named ${name}`);
    if (id !== undefined && !VOLUME_ID_PATTERN.test(id)) return fail("invalid", `id: must be vol_ and 16 of [a-z2-7], not ${id}`);
    if (id !== undefined && sql`SELECT 1 FROM volumes WHERE id = ${id}`.length > 0) return fail("conflict", `id: the account already has a volume ${id}`);
    return null;
  }

  /** A new name, a larger size, or both. */
  private async update(volume: VolumeRow, changes: { name?: string; size_gb?: number }): Promise<Ok<{ volume: VolumeView }> | Failure> {
    const { sql } = this.parts;
    const { name, size_gb: size } = changes;
    const refused = (name === undefined ? null : nameRefusal(name)) ?? (size === undefined ? null : sizeRefusal(size));
    if (refused) return refused;
    if (size !== undefined && size < volume.size_gb) {
      return fail("invalid", `size_gb: a volume may only grow; ${volume.name} has ${volume.size_gb} GB, more than ${size}`);
    }
    const updated = this.parts.transaction((): Ok<{ volume: VolumeView }> | Failure => {
      if (name !== undefined && name !== volume.name) {
        const taken = this.takenRefusal(name, undefined);
        if (taken) return taken;
        sql`UPDATE volumes SET name = ${name} WHERE id = ${volume.id}`;
      }
      if (size !== undefined) sql`UPDATE volumes SET size_gb = ${size} WHERE id = ${volume.id}`;
      recordAudit(sql, { action: "volume.update", target: { type: "volume", id: volume.id }, detail: `${name ?? volume.name}, ${size ?? volume.size_gb} GB` });
      return { ok: true, volume: this.view(findVolume(sql, volume.id)!) };
    });
    if (updated.ok && size !== undefined && size > volume.size_gb) await this.resizeOnHosts(volume.id);
    return updated;
  }

  /**
   * The hosts of the live instances that have the volume learn its new size, so their saves take it
   * from their next command on (a save now, a stop, a destroy). A host out of reach learns it at the
   * instance's next start, whose command carries every mount as it is then.
   */
  private async resizeOnHosts(volumeId: string): Promise<void> {
    const { sql, env } = this.parts;
    const holders = sql<{ id: string; machine_id: number }>`
      SELECT i.id, i.machine_id FROM volume_attachments a JOIN instances i ON i.id = a.instance_id
      WHERE a.volume_id = ${volumeId} AND i.machine_id IS NOT NULL AND i.status != 'destroyed'`;
    await Promise.all(holders.map(({ id, machine_id }) =>
      machineOf(env, machine_id).refreshVolumeMounts(id, mountsNow(sql, id)).catch((error: unknown) =>
        log("warn", "a grown volume's size not given to its host: it takes it at the instance's next start", { instance_id: id, volume_id: volumeId, error: errorText(error) }))));
  }

  /** Refused while an instance has it attached; else the volume, its snapshots and every object under its prefix go. */
  private async delete(volume: VolumeRow): Promise<Ok<object> | Failure> {
    const { sql } = this.parts;
    const deleted = this.parts.transaction((): Failure | null => {
      // A live holder is named before one already destroyed: destroying it is the step left to the user.
      const [attached] = sql<{ instance_id: string }>`
        SELECT a.instance_id FROM volume_attachments a LEFT JOIN instances i ON i.id = a.instance_id
        WHERE a.volume_id = ${volume.id} ORDER BY i.status = 'destroyed', a.instance_id`;
      if (attached) return fail("conflict", `volume ${volume.name} is attached to instance ${attached.instance_id}; ${freeingStep(sql, attached.instance_id)}`);
      chargeStorageUntil(sql, this.parts.env, volume.id, clock.now());
      sql`DELETE FROM volume_snapshots WHERE volume_id = ${volume.id}`;
      sql`DELETE FROM volume_chunk_refs WHERE volume_id = ${volume.id}`;
      sql`DELETE FROM volumes WHERE id = ${volume.id}`;
      recordAudit(sql, { action: "volume.delete", target: { type: "volume", id: volume.id }, detail: volume.name });
      this.parts.garbage.queuePrefix(volume.id, volumePrefix(this.parts.accountId(), volume.id));
      return null;
    });
    if (deleted) return deleted;
    await this.parts.locks.run(volume.id, () => this.parts.garbage.collectLocked(volume.id));
    return { ok: true };
  }

  /** Asks the host of the instance holding it read-write to save it now. */
  private async save(volume: VolumeRow): Promise<Ok<object> | Failure> {
    const { sql, env } = this.parts;
    const holder = readWriteHolder(sql, volume.id);
    const instance = holder === null ? undefined : sql<InstanceRow>`SELECT * FROM instances WHERE id = ${holder}`[0];
    if (!instance || instance.status !== "running" || instance.machine_id === null) {
      const where = instance ? `its instance ${instance.id} is ${instance.status}` : "no instance has it attached read-write";
      return fail("not_running", `volume ${volume.name} can be saved only from a running instance that has it attached read-write; ${where}`);
    }
    return machineOf(env, instance.machine_id).saveVolumes(instance.id, mountsNow(sql, instance.id));
  }
}

function nameRefusal(name: string): Failure | null {
  return VOLUME_NAME.test(name) ? null : fail("invalid", "name: must be 1 to 63 of a-z, 0-9 and -, starting with a letter");
}

function sizeRefusal(size: number): Failure | null {
  const { min, max } = VOLUME_SIZE_GB;
  return Number.isInteger(size) && size >= min && size <= max ? null : fail("invalid", `size_gb: must be an integer from ${min} to ${max}`);
}
