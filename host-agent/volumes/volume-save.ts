// A working copy saved as the volume's next version, sending only what its base lacks: the copy is
// scanned (working-copy-scan.ts), refused whole when over the volume's size, each file cut into
// chunks at fixed 8 MiB offsets and hashed (a file unchanged since its last hashing, by its stat,
// is not read), each chunk the base does not name uploaded as it is read (the bytes uploaded are the
// bytes hashed, even when the tenant writes the file meanwhile), then the manifest under a fresh
// name, then the commit. The base becomes the new version only once the platform committed it:
// a save that fails or dies before leaves the base, and the volume, at the previous version.
import { createHash, randomBytes } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import {
  chunkName, manifestChunks, manifestName, volumeManifest, VOLUME_CHUNK_BYTES, type ManifestEntry, type VolumeManifest, type VolumeMount,
} from "../../protocol/volumes.ts";
import type { ChunkCache } from "./chunk-cache.ts";
import { ParallelTasks } from "./parallel-tasks.ts";
import { PresignedUrls, transfer, type VolumeSigner } from "./presigned-urls.ts";
import { openScannedFile, scanWorkingCopy, type ScannedEntry } from "./working-copy-scan.ts";
import {
  readBase, readPending, readStats, removePending, sameStat, writeBase, writePending, writeStats, type Base, type FileStat, type HashedFile,
} from "./working-copy-state.ts";

/** Chunks uploaded at once: 4 × 8 MiB in memory at most, besides the one being read. */
const PARALLEL_UPLOADS = 4;
/** The longest reason the platform takes (protocol/volumes.ts volumeSaveFailed). */
const MAX_REASON = 500;

export type SaveResult =
  /** The copy is its base: nothing was sent, nothing committed. */
  | { kind: "unchanged"; skipped: string[] }
  | { kind: "saved"; version: number; bytes_sent: number; skipped: string[] }
  /** Nothing committed: the volume stays at its last version. `bytes_sent`: chunks uploaded before the failure. */
  | { kind: "failed"; reason: string; bytes_sent: number };

export async function saveVolume(mount: VolumeMount, from: string, signer: VolumeSigner, cache: ChunkCache): Promise<SaveResult> {
  const sent = { bytes: 0 };
  try {
    return await save(mount, from, signer, cache, sent);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { kind: "failed", reason: reason.slice(0, MAX_REASON), bytes_sent: sent.bytes };
  }
}

async function save(mount: VolumeMount, from: string, signer: VolumeSigner, cache: ChunkCache, sent: { bytes: number }): Promise<SaveResult> {
  const failed = (reason: string): SaveResult => ({ kind: "failed", reason, bytes_sent: sent.bytes });
  if (mount.read_only) return failed(`the volume ${mount.volume_id} is mounted read-only here`);
  const restored = await readBase(from);
  if (!restored || restored.volume_id !== mount.volume_id) return failed(`the working copy ${from} of ${mount.volume_id} has no base version: it was never restored`);
  const base = await settlePending(from, restored, signer);
  const scan = await scanWorkingCopy(from);
  const scannedBytes = scan.entries.reduce((sum, entry) => sum + (entry.type === "file" ? entry.size : 0), 0);
  if (scannedBytes > mount.max_bytes) return failed(overSize(scannedBytes, mount.max_bytes));

  const stats = await readStats(from);
  const known = new Set(manifestChunks(base.content).keys());
  const puts = new PresignedUrls(signer, mount.volume_id, "PUT");
  const uploads = new ParallelTasks(PARALLEL_UPLOADS);
  const hashed = new Map<string, HashedFile>();
  const entries: ManifestEntry[] = [];
  try {
    for (const entry of scan.entries) {
      if (entry.type !== "file") {
        entries.push(entry.type === "dir"
          ? { type: "dir", path: entry.path, mode: entry.mode, mtime_ms: entry.mtime_ms }
          : { type: "symlink", path: entry.path, target: entry.target, mtime_ms: entry.mtime_ms });
        continue;
      }
      const previous = stats.get(entry.path);
      if (previous && sameStat(previous.stat, entry.stat) && previous.chunks.every((hash) => known.has(hash))) {
        hashed.set(entry.path, previous);
        entries.push(fileEntry(entry, entry.size, previous.chunks));
        continue;
      }
      const file = await openScannedFile(scan.root, entry.path);
      // Gone or replaced since the scan: the next save sees what is there now.
      if (file === null) continue;
      try {
        const read = await readChunks(file, async (hash, bytes) => {
          if (known.has(hash)) return;
          known.add(hash);
          await uploads.add(async () => {
            await transfer(puts, chunkName(hash), [], bytes);
            sent.bytes += bytes.length;
            await cache.put(hash, bytes);
          });
        });
        if (read.unchangedWhileRead) hashed.set(entry.path, { stat: read.stat, chunks: read.chunks });
        entries.push(fileEntry(entry, read.size, read.chunks));
      } finally {
        await file.close();
      }
    }
  } finally {
    await uploads.done().finally(() => writeStats(from, hashed).catch(() => {}));
  }

  const content = volumeManifest.safeParse({ format: 1, entries });
  if (!content.success) {
    const issue = content.error.issues[0]!;
    const entry = typeof issue.path[1] === "number" ? entries[issue.path[1]] : undefined;
    return failed(`the volume's content cannot be saved: ${entry ? `${entry.path}: ` : ""}${issue.message}`);
  }
  const bytes = entries.reduce((sum, entry) => sum + (entry.type === "file" ? entry.size : 0), 0);
  if (bytes > mount.max_bytes) return failed(overSize(bytes, mount.max_bytes));
  if (sameContent(content.data, base.content)) return { kind: "unchanged", skipped: scan.skipped };

  const name = manifestName(randomBytes(24).toString("base64url"));
  await transfer(puts, name, [], Buffer.from(JSON.stringify(content.data)));
  await writePending(from, { base_version: base.version, manifest: name, content: content.data });
  const committed = await signer.commit(mount.volume_id, base.version, name, sent.bytes);
  if (committed.version !== null) await writeBase(from, { volume_id: mount.volume_id, version: committed.version, manifest: name, content: content.data });
  await removePending(from);
  if (committed.version === null) return failed(`the platform refused version ${base.version + 1}: ${committed.error}`);
  return { kind: "saved", version: committed.version, bytes_sent: sent.bytes, skipped: scan.skipped };
}

/**
 * The base once a commit left unanswered is settled: sent again, it is the version it made (the
 * platform answers a save it already committed with that version) or refused (it never was one).
 * Sending it fails as the connection does, keeping it pending for the save after.
 */
async function settlePending(from: string, base: Base, signer: VolumeSigner): Promise<Base> {
  const pending = await readPending(from);
  if (pending === null) return base;
  if (pending.base_version === base.version) {
    const committed = await signer.commit(base.volume_id, pending.base_version, pending.manifest, 0);
    if (committed.version !== null) {
      const settled = { volume_id: base.volume_id, version: committed.version, manifest: pending.manifest, content: pending.content };
      await writeBase(from, settled);
      await removePending(from);
      return settled;
    }
  }
  await removePending(from);
  return base;
}

const fileEntry = (entry: ScannedEntry & { type: "file" }, size: number, chunks: string[]): ManifestEntry =>
  ({ type: "file", path: entry.path, mode: entry.mode, mtime_ms: entry.mtime_ms, size, chunks });

const overSize = (bytes: number, maxBytes: number) =>
  `the volume's content is ${bytes.toLocaleString("en-US")} bytes, over its size of ${maxBytes.toLocaleString("en-US")} bytes: nothing was saved, the last version stays`;

/** The file's chunks as read now, each handed to `chunk` (which may wait: a slow upload slows the reading). */
async function readChunks(file: FileHandle, chunk: (hash: string, bytes: Buffer) => Promise<void>) {
  const before = await file.stat({ bigint: true });
  const stat: FileStat = { ino: before.ino, size: before.size, mtimeNs: before.mtimeNs, ctimeNs: before.ctimeNs };
  const chunks: string[] = [];
  // Up to the size it had when opened: what is appended meanwhile goes in the next save.
  const length = Number(before.size);
  let size = 0;
  while (size < length) {
    const bytes = Buffer.allocUnsafe(Math.min(VOLUME_CHUNK_BYTES, length - size));
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await file.read(bytes, filled, bytes.length - filled, size + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled === 0) break;
    const piece = filled === bytes.length ? bytes : bytes.subarray(0, filled);
    const hash = createHash("sha256").update(piece).digest("hex");
    chunks.push(hash);
    size += filled;
    await chunk(hash, piece);
    if (filled < bytes.length) break;
  }
  const after = await file.stat({ bigint: true });
  const unchangedWhileRead = size === length && after.size === before.size && after.mtimeNs === before.mtimeNs && after.ctimeNs === before.ctimeNs;
  return { stat, chunks, size, unchangedWhileRead };
}

/** Whether two manifests say the same, compared field by field in one order (one may have come from storage). */
function sameContent(a: VolumeManifest, b: VolumeManifest): boolean {
  if (a.entries.length !== b.entries.length) return false;
  return a.entries.every((entry, i) => canonical(entry) === canonical(b.entries[i]!));
}

function canonical(entry: ManifestEntry): string {
  switch (entry.type) {
    case "dir": return JSON.stringify(["dir", entry.path, entry.mode, entry.mtime_ms]);
    case "file": return JSON.stringify(["file", entry.path, entry.mode, entry.mtime_ms, entry.size, entry.chunks]);
    case "symlink": return JSON.stringify(["symlink", entry.path, entry.target, entry.mtime_ms]);
  }
}
