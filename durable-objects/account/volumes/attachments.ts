// Volumes mounted in instances. An attachment is made in the transaction that records the instance
// at launch and ends when its host reports the container destroyed (the final save of a destroy is
// committed before that), or with the instance row itself (a launch no host took: schema.ts's
// trigger). A volume has at most one read-write attachment; read-only ones are unlimited.
import type { LaunchVolume } from "../../../core/launch-plan.ts";
import { fail, type Failure, type Ok } from "../../../core/errors.ts";
import type { VolumeMount } from "../../../protocol/volumes.ts";
import type { VolumeVersion } from "../../contracts/fleet.ts";
import type { Sql } from "../../sql.ts";
import { findVolume, type VolumeRow } from "./volume-rows.ts";

/** A volume as an instance's object shows it. */
export type InstanceVolume = LaunchVolume;

interface Resolved {
  volume: VolumeRow;
  request: LaunchVolume;
}

/** Whether the launch's volumes exist and may be attached now; read-only, so it may run before placement and again in the launch's transaction. */
export function attachmentRefusal(sql: Sql, requested: LaunchVolume[]): Failure | null {
  const resolved = resolve(sql, requested);
  return resolved.ok ? null : resolved;
}

/** Inside the launch's transaction, the instance row written: attaches its volumes; the container spec's mounts, or the refusal. */
export function attachVolumes(sql: Sql, instanceId: string, requested: LaunchVolume[]): Ok<{ mounts: VolumeMount[] }> | Failure {
  const resolved = resolve(sql, requested);
  if (!resolved.ok) return resolved;
  const shown: InstanceVolume[] = [];
  const mounts = resolved.volumes.map(({ volume, request }) => {
    sql`INSERT INTO volume_attachments (volume_id, instance_id, path, read_only) VALUES (${volume.id}, ${instanceId}, ${request.path}, ${request.read_only ? 1 : 0})`;
    shown.push({ volume_id: volume.id, path: request.path, read_only: request.read_only });
    return mountOf(volume, request.path, request.read_only);
  });
  sql`UPDATE instances SET volumes = ${JSON.stringify(shown)} WHERE id = ${instanceId}`;
  return { ok: true, mounts };
}

/** The launch's volumes that hold content, at their latest versions: placement prefers a host whose cache holds them. */
export function latestVersions(sql: Sql, requested: LaunchVolume[]): VolumeVersion[] {
  return requested.flatMap(({ volume_id: idOrName, read_only }) => {
    const volume = findVolume(sql, idOrName);
    return volume && volume.version > 0 ? [{ volume_id: volume.id, version: volume.version, read_only }] : [];
  });
}

/**
 * The instance's mounts as its volumes are now (latest version, size): what its host gets at a
 * start, so a read-only mount sees the latest version and a grown volume its new size.
 */
export function mountsNow(sql: Sql, instanceId: string): VolumeMount[] {
  const rows = sql<VolumeRow & { path: string; read_only: number }>`
    SELECT v.*, a.path, a.read_only FROM volume_attachments a JOIN volumes v ON v.id = a.volume_id WHERE a.instance_id = ${instanceId} ORDER BY v.id`;
  return rows.map((row) => mountOf(row, row.path, row.read_only === 1));
}

const mountOf = (volume: VolumeRow, path: string, readOnly: boolean): VolumeMount =>
  ({ volume_id: volume.id, path, read_only: readOnly, version: volume.version, manifest: volume.manifest, max_bytes: volume.size_gb * 1e9 });

/** The host reported the instance's container destroyed: its volumes are free. */
export function endAttachments(sql: Sql, instanceId: string): void {
  sql`DELETE FROM volume_attachments WHERE instance_id = ${instanceId}`;
}

/** The instance holding the volume read-write, if one does. */
export const readWriteHolder = (sql: Sql, volumeId: string): string | null =>
  sql<{ instance_id: string }>`SELECT instance_id FROM volume_attachments WHERE volume_id = ${volumeId} AND read_only = 0`[0]?.instance_id ?? null;

export const isAttachedReadWrite = (sql: Sql, volumeId: string, instanceId: string): boolean =>
  sql`SELECT 1 FROM volume_attachments WHERE volume_id = ${volumeId} AND instance_id = ${instanceId} AND read_only = 0`.length > 0;

/** What frees a volume `instanceId` holds: its destroy, and its host removing the container after the final save. */
export function freeingStep(sql: Sql, instanceId: string): string {
  const [row] = sql<{ status: string }>`SELECT status FROM instances WHERE id = ${instanceId}`;
  return row?.status === "destroyed"
    ? "wait until its host has removed the container: that instance is destroyed, and its host saves the volume before it removes it"
    : "destroy that instance first (its host saves the volume before it removes the container)";
}

function resolve(sql: Sql, requested: LaunchVolume[]): Ok<{ volumes: Resolved[] }> | Failure {
  const volumes: Resolved[] = [];
  for (const [i, request] of requested.entries()) {
    const volume = findVolume(sql, request.volume_id);
    if (!volume) return fail("invalid", `volumes[${i}].volume_id: no volume ${request.volume_id} in this account; see GET /v1/volumes`);
    if (volumes.some((other) => other.volume.id === volume.id)) return fail("invalid", `volumes: volume ${volume.name} (${volume.id}) is named twice`);
    const holder = request.read_only ? null : readWriteHolder(sql, volume.id);
    if (holder) {
      return fail("conflict", `volumes[${i}]: volume ${volume.name} is attached read-write to instance ${holder}; attach it read-only, or ${freeingStep(sql, holder)}`);
    }
    volumes.push({ volume, request });
  }
  return { ok: true, volumes };
}
