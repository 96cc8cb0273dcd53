// What the files route and the AccountDO promise each other about a resumable upload of one file into
// a volume (PUT /v1/volumes/{id}/files with `upload`): the Worker stores each part's chunks through the
// binding; the volume's AccountDO keeps the upload's state (its path, the bytes staged, the chunks so
// far), checks each part's offset, keeps the chunks from the volume's garbage collection until the
// upload ends, and commits the version the final part makes. Bytes never reach the object.
import type { Failure, Ok } from "../../core/errors.ts";
import type { VolumeContent } from "./volumes.ts";

/** An upload untouched this long is forgotten (and a completed one's id with it). */
export const VOLUME_UPLOAD_IDLE_MS = 60 * 60_000;

/** Where an upload stands, as the route asks before it reads a part's body. */
export interface VolumeUploadState {
  content: VolumeContent;
  /** The bytes staged so far (0 for an upload not begun). */
  offset: number;
  /** The file's size once the upload wrote it into a version; null before. */
  written: number | null;
  /** What the volume's other uploads stage together: with this one, at most its size_gb. */
  others_bytes: number;
}

/** One part's chunks, stored: appended if `offset` is still the upload's staged size. */
export interface VolumeUploadPart {
  volume_id: string;
  upload_id: string;
  /** The file's path in the volume (relative, as manifests name it). */
  path: string;
  offset: number;
  /** The part's chunks in order, each at most VOLUME_CHUNK_BYTES; every one but the last of a final part is whole. */
  chunks: { hash: string; size: number }[];
  /** Chunks of the part this request stored: garbage if the part is refused and nothing else holds them. */
  stored: string[];
  /** The bytes of the chunks this request stored. */
  bytes_sent: number;
  final: boolean;
}

/** The part is staged: `offset` is the bytes staged now; a final part gets every chunk of the file, in order. */
export type VolumeUploadAppended = Ok<{ offset: number; chunks: string[] | null }> | Failure;

/** The file's version to commit: its manifest is stored (a name within the volume), made from `base_version`'s. */
export interface VolumeUploadDone {
  volume_id: string;
  upload_id: string;
  base_version: number;
  manifest: string;
}

// The AccountDO's methods for these (account-do.ts), each with the caller's credential:
// - volumeUpload(key, idOrName, uploadId, path) -> Ok<VolumeUploadState> | Failure
// - appendVolumeUpload(key, part) -> VolumeUploadAppended  (refusals carry `Upload-Offset` in `headers`)
// - completeVolumeUpload(key, done) -> VolumeCommitResult  (commits, then keeps the id as written for VOLUME_UPLOAD_IDLE_MS)
