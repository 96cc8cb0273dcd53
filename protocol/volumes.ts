// Volumes as the platform, the host agent, the CLI and the files route all store them: a volume's
// content is chunks and manifests in one R2 bucket, under a prefix of its own account and volume.
//
// - A chunk is at most VOLUME_CHUNK_BYTES of one file, named by the SHA-256 of its bytes: chunk i of
//   a file holds its bytes [i × VOLUME_CHUNK_BYTES, (i + 1) × VOLUME_CHUNK_BYTES). Fixed offsets keep a
//   change of one byte in place to one new chunk. Chunks are shared only within one volume:
//   deduplication across volumes would tell one tenant what another stores.
// - A manifest lists every directory, file and symbolic link of one version, each file with its
//   chunks. It is written before the version is committed, under a fresh name, and the platform's
//   record of the volume names the manifest of its latest version: a save that dies midway leaves a
//   manifest nobody names and the previous version whole.
//
// Object names here are relative to the volume (`chunks/…`, `manifests/…`): the platform alone adds
// the account's and the volume's prefix (volumeObjectKey), so no host or client can name another
// volume's objects.
import { z } from "zod";

/** The largest chunk: 8 MiB. */
export const VOLUME_CHUNK_BYTES = 8 * 1024 * 1024;

/** The most volumes one instance may have. */
export const MAX_INSTANCE_VOLUMES = 4;

/** `vol_` + 16 base32 characters. */
export const VOLUME_ID_PATTERN = /^vol_[a-z2-7]{16}$/;
/** `snap_` + 16 base32 characters. */
export const SNAPSHOT_ID_PATTERN = /^snap_[a-z2-7]{16}$/;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

/** A chunk's name within its volume. */
export const chunkName = (sha256: string) => `chunks/${sha256}`;
/** A manifest's name within its volume: `id` is fresh for every save (16 to 64 of [A-Za-z0-9_-]). */
export const manifestName = (id: string) => `manifests/${id}.json`;
/** Every name an object of a volume may have. */
export const VOLUME_OBJECT_NAME = /^(chunks\/[0-9a-f]{64}|manifests\/[A-Za-z0-9_-]{16,64}\.json)$/;

/** Where a volume's objects live in the bucket: only the platform composes this. */
export const volumePrefix = (accountId: string, volumeId: string) => `accounts/${accountId}/volumes/${volumeId}/`;
export const volumeObjectKey = (accountId: string, volumeId: string, name: string) => volumePrefix(accountId, volumeId) + name;

/**
 * A path inside a volume, relative to its root: `/`-separated, no empty, `.` or `..` component, no
 * leading or trailing `/`, no NUL, at most 4096 bytes.
 */
export const volumePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((path) => !path.includes("\0") && path.split("/").every((part) => part !== "" && part !== "." && part !== ".."), "a relative path without empty, . or .. parts");

const mode = z.number().int().min(0).max(0o7777);
const mtimeMs = z.number().int().min(0);

export const manifestEntry = z.discriminatedUnion("type", [
  z.object({ type: z.literal("dir"), path: volumePath, mode, mtime_ms: mtimeMs }),
  z.object({
    type: z.literal("file"),
    path: volumePath,
    mode,
    mtime_ms: mtimeMs,
    size: z.number().int().min(0),
    /** ceil(size / VOLUME_CHUNK_BYTES) chunks, in order. */
    chunks: z.array(sha256Hex),
  }),
  z.object({ type: z.literal("symlink"), path: volumePath, target: z.string().min(1).max(4096), mtime_ms: mtimeMs }),
]);
export type ManifestEntry = z.infer<typeof manifestEntry>;

/** One version's content: entries sorted by path (byte order), a directory before what it holds. */
export const volumeManifest = z
  .object({ format: z.literal(1), entries: z.array(manifestEntry) })
  .refine(({ entries }) => entries.every((entry) => entry.type !== "file" || entry.chunks.length === Math.ceil(entry.size / VOLUME_CHUNK_BYTES)), "each file has ceil(size / 8 MiB) chunks");
export type VolumeManifest = z.infer<typeof volumeManifest>;

/** The content's size: what `size_gb` bounds and `used_bytes` reports. */
export const manifestBytes = (manifest: VolumeManifest) => manifest.entries.reduce((sum, entry) => sum + (entry.type === "file" ? entry.size : 0), 0);

/** Each chunk a manifest names once, with its size. */
export function manifestChunks(manifest: VolumeManifest): Map<string, number> {
  const chunks = new Map<string, number>();
  for (const entry of manifest.entries) {
    if (entry.type !== "file") continue;
    entry.chunks.forEach((hash, i) => chunks.set(hash, Math.min(VOLUME_CHUNK_BYTES, entry.size - i * VOLUME_CHUNK_BYTES)));
  }
  return chunks;
}

/**
 * A volume in a container's spec: where it is mounted and which version the container starts from
 * (`manifest` null: version 0, empty). `max_bytes` is its `size_gb` in bytes: content past it is not saved.
 */
export const volumeMount = z.object({
  volume_id: z.string().regex(VOLUME_ID_PATTERN),
  path: z.string().startsWith("/"),
  read_only: z.boolean(),
  version: z.number().int().min(0),
  manifest: z.string().regex(VOLUME_OBJECT_NAME).nullable(),
  max_bytes: z.number().int().min(1),
});
export type VolumeMount = z.infer<typeof volumeMount>;

const requestId = z.number().int().min(1).max(0xffffffff);
const instanceId = z.string().regex(/^i-[a-z2-7]{16}$/);
const volumeId = z.string().regex(VOLUME_ID_PATTERN);

/** The most object names one `volume_sign` may ask for. */
export const MAX_SIGNED_NAMES = 1000;

/**
 * Agent -> MachineDO: presigned URLs for objects of a volume mounted in one of its instances. GET
 * for any mount, PUT only for a read-write one; the answer is `volume_signed`.
 */
export const volumeSign = z.object({
  type: z.literal("volume_sign"),
  request_id: requestId,
  instance_id: instanceId,
  volume_id: volumeId,
  method: z.enum(["GET", "PUT"]),
  names: z.array(z.string().regex(VOLUME_OBJECT_NAME)).min(1).max(MAX_SIGNED_NAMES),
});
export type VolumeSign = z.infer<typeof volumeSign>;

/** MachineDO -> agent: one URL per name asked, in order, valid `expires_s`; or `error` and no URLs. */
export const volumeSigned = z.object({
  type: z.literal("volume_signed"),
  request_id: requestId,
  urls: z.array(z.string()),
  expires_s: z.number().int().min(0),
  error: z.string(),
});
export type VolumeSigned = z.infer<typeof volumeSigned>;

/**
 * Agent -> MachineDO: a save whose chunks and manifest are stored, to commit as the version after
 * `base_version` (refused when the volume has moved past it). `bytes_sent`: the chunks' bytes this
 * save uploaded. Answered by `volume_committed`.
 */
export const volumeCommit = z.object({
  type: z.literal("volume_commit"),
  request_id: requestId,
  instance_id: instanceId,
  volume_id: volumeId,
  base_version: z.number().int().min(0),
  manifest: z.string().regex(VOLUME_OBJECT_NAME),
  bytes_sent: z.number().int().min(0),
});
export type VolumeCommit = z.infer<typeof volumeCommit>;

/** MachineDO -> agent: the version committed, or null with the reason. */
export const volumeCommitted = z.object({
  type: z.literal("volume_committed"),
  request_id: requestId,
  version: z.number().int().min(1).nullable(),
  error: z.string(),
});
export type VolumeCommitted = z.infer<typeof volumeCommitted>;

/** The most volume versions one `volume_cache` names. */
export const MAX_HELD_VOLUMES = 100;

/**
 * Agent -> MachineDO: the volumes' versions whose every chunk this host's cache holds (restoring them
 * here fetches nothing), most recently used first; each message replaces the last. Sent after the
 * hello's welcome and after each restore and save. Placement prefers a host holding a launch's
 * volumes at their latest versions.
 */
export const volumeCache = z.object({
  type: z.literal("volume_cache"),
  volumes: z.array(z.object({ volume_id: volumeId, version: z.number().int().min(1) })).max(MAX_HELD_VOLUMES),
});
export type VolumeCache = z.infer<typeof volumeCache>;
export type HeldVolume = VolumeCache["volumes"][number];

/** Agent -> MachineDO: a save that could not be made (its content past `max_bytes`, R2 unreachable…): the last version stays. */
export const volumeSaveFailed = z.object({
  type: z.literal("volume_save_failed"),
  instance_id: instanceId,
  volume_id: volumeId,
  reason: z.string().max(500),
});
export type VolumeSaveFailed = z.infer<typeof volumeSaveFailed>;
