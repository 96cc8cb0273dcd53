// What objects and the Worker promise each other about volumes. The AccountDO of the volume's
// account is the authority for the volume: its name, size, attachments, latest version (the
// manifest that version names), snapshots and which chunks they keep. A MachineDO signs URLs only
// for the volumes its own containers' specs mount, and forwards its agent's commits here; the
// Worker's files route commits what it stored through the binding the same way.
import type { Failure } from "../../core/errors.ts";

export interface VolumeAttachmentView {
  instance_id: string;
  path: string;
  read_only: boolean;
}

/** A volume as the API shows it. */
export interface VolumeView {
  id: string;
  name: string;
  size_gb: number;
  /** The latest version's content. */
  used_bytes: number;
  /** Unique bytes kept: the latest version's and every snapshot's chunks, each once. */
  stored_bytes: number;
  /** 0 while empty; +1 per save that changed something. */
  version: number;
  attachments: VolumeAttachmentView[];
  saved_at: string | null;
  created_at: string;
  /** What `stored_bytes` costs a month now: stored GB (decimal) × VOLUME_PRICE_GB_MONTH_MICROS. */
  price_month_micros: number;
  /** When the volume will be deleted for a balance at or below zero; null when it will not. */
  delete_at: string | null;
}

export interface SnapshotView {
  id: string;
  name: string;
  version: number;
  stored_bytes: number;
  created_at: string;
}

/**
 * A save to commit: its manifest is stored under `manifest` (a name within the volume) and so is
 * every chunk it names. `instance_id` is the instance whose host saved it, or null for the files
 * route (refused while the volume is attached read-write). The commit reads the manifest through
 * the binding, checks every chunk is there and the content within `size_gb`, then records the
 * version in one transaction, only if the volume is still at `base_version`.
 */
export interface VolumeCommitRequest {
  volume_id: string;
  instance_id: string | null;
  base_version: number;
  manifest: string;
  bytes_sent: number;
}

export type VolumeCommitResult = { ok: true; version: number; changed: boolean } | Failure;

/** A host's save that could not be made: an event, the instance's status message and `volume.save_failed`. */
export interface VolumeSaveFailure {
  volume_id: string;
  instance_id: string;
  reason: string;
}

/** What the files route needs to read or replace a volume's content with no instance. */
export interface VolumeContent {
  account_id: string;
  volume_id: string;
  version: number;
  /** The latest version's manifest name; null at version 0. */
  manifest: string | null;
  /** `size_gb` in bytes (decimal GB). */
  max_bytes: number;
  /** The instance holding it read-write, if any: the files route's PUT is refused then. */
  attached_read_write: string | null;
}

/** A new volume: empty, or (`from`) holding a snapshot's content the caller has already copied under the new volume's prefix. */
export interface NewVolume {
  name: string;
  size_gb: number;
  /** The new volume's id, chosen by the caller that copies objects under its prefix first (newVolumeId); a fresh one when absent. */
  id?: string;
  /** The copied content: its manifest (a name within the new volume) and the snapshot's version it was; the new volume is at version 1. */
  from?: { manifest: string; version: number };
}

/** Where a snapshot's content is, for the files route to copy it into a new volume with the binding. */
export interface SnapshotSource {
  account_id: string;
  volume_id: string;
  /** The snapshot's manifest, a name within `volume_id`; null for a snapshot of version 0 (empty). */
  manifest: string | null;
  /** The volume's version the snapshot holds. */
  version: number;
  size_gb: number;
}

// The AccountDO's methods for these (account-do.ts):
// - createVolume(key, volume: NewVolume) -> Ok<{ volume: VolumeView }> | Failure  (the API; the files route for `from_snapshot`:
//   with `from`, the manifest and every chunk it names are checked under the new volume's prefix, and the volume is made at version 1 in one step)
// - snapshotSource(key, snapshotId) -> Ok<{ source: SnapshotSource }> | Failure  (the files route, before copying)
// - volumeContent(key, idOrName) -> Ok<{ content: VolumeContent }> | Failure   (the files route)
// - commitVolumeFiles(key, request with instance_id null) -> VolumeCommitResult (the files route)
// - commitVolumeVersion(request with instance_id) -> VolumeCommitResult     (a MachineDO, for its agent)
// - volumeSaveFailed(failure: VolumeSaveFailure) -> void                      (a MachineDO, for its agent)

/** The rules of a volume's name and size (the API's schema and the AccountDO both hold to them). */
export const VOLUME_NAME = /^[a-z][a-z0-9-]{0,62}$/;
export const VOLUME_SIZE_GB = { min: 1, max: 10_000 } as const;
/** The most snapshots one volume keeps. */
export const MAX_VOLUME_SNAPSHOTS = 100;

/** What a caller asks of its volumes besides creating one (`volume`: its id or its name). */
export type VolumeCall =
  | { op: "list" }
  | { op: "get"; volume: string }
  | { op: "update"; volume: string; name?: string; size_gb?: number }
  | { op: "delete"; volume: string }
  | { op: "save"; volume: string }
  | { op: "snapshots"; volume: string }
  | { op: "snapshot"; volume: string; name?: string }
  | { op: "delete_snapshot"; volume: string; snapshot_id: string };

export type VolumeAnswer =
  | { ok: true; volumes: VolumeView[] }
  | { ok: true; volume: VolumeView }
  | { ok: true; snapshots: SnapshotView[] }
  | { ok: true; snapshot: SnapshotView }
  | { ok: true };
