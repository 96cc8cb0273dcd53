// A volume's version made into a working copy on this host: the manifest fetched, the chunks this
// host's cache lacks fetched in parallel and each checked against its hash, the tree built in a
// folder beside the copy and put in its place whole, and the version remembered as the copy's base.
// The manifest comes from storage a tenant can write (the files route, any save), so nothing in it
// may place an entry outside the copy: every entry's parent must be a directory of the manifest
// (never a link, which could point anywhere), and the paths are relative without `..` (the schema).
// Links are created as their targets say and never followed here; they resolve in the container.
import { createHash } from "node:crypto";
import { lchown, lstat, lutimes, mkdir, open, rename, rm, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { chunkName, manifestChunks, volumeManifest, type ManifestEntry, type VolumeManifest, type VolumeMount, VOLUME_CHUNK_BYTES } from "../../protocol/volumes.ts";
import type { ChunkCache } from "./chunk-cache.ts";
import { ParallelTasks } from "./parallel-tasks.ts";
import { PresignedUrls, SIGN_BATCH, transfer, type VolumeSigner } from "./presigned-urls.ts";
import { readBase, removeBase, writeBase, writeStats, type HashedFile } from "./working-copy-state.ts";

/** Chunks fetched or copied at once: 8 × 8 MiB in memory at most. */
const PARALLEL_CHUNKS = 8;
/** setuid and setgid are not restored: a file the agent writes must not grant a container's user another's rights. */
const RESTORED_MODE_BITS = 0o1777;

export interface RestoreOptions {
  /** Who owns every restored entry (the container's user); the agent's own user when absent. */
  owner?: { uid: number; gid: number };
}

export interface RestoreResult {
  /** True when the copy already held this version (nothing was fetched or written). */
  reused: boolean;
  /** Chunk bytes fetched from storage. */
  fetched_bytes: number;
  /** Chunk bytes this host's cache had. */
  cached_bytes: number;
}

export async function restoreVolume(mount: VolumeMount, into: string, signer: VolumeSigner, cache: ChunkCache, options: RestoreOptions = {}): Promise<RestoreResult> {
  const base = await readBase(into);
  const copyExists = (await lstat(into).catch(() => null))?.isDirectory() ?? false;
  if (copyExists && base && base.volume_id === mount.volume_id && base.version === mount.version && base.manifest === mount.manifest) {
    return { reused: true, fetched_bytes: 0, cached_bytes: 0 };
  }
  const gets = new PresignedUrls(signer, mount.volume_id, "GET");
  const content = mount.manifest === null ? { format: 1 as const, entries: [] } : await fetchManifest(gets, mount.manifest);
  const chunks = manifestChunks(content);
  const staging = `${into}.restoring`;
  await rm(staging, { recursive: true, force: true });
  const release = cache.pin(chunks.keys());
  try {
    await mkdir(dirname(into), { recursive: true });
    await mkdir(staging, { mode: 0o700 });
    await createTree(staging, content);
    const counts = await fillChunks(staging, content, chunks, gets, cache);
    await setMetadata(staging, content, options);
    const stats = await statFiles(staging, content);
    // No base while the copy is being replaced: a save meanwhile must not take the old copy for the new version.
    await removeBase(into);
    await replaceCopy(into, staging, copyExists);
    await writeStats(into, stats);
    await writeBase(into, { volume_id: mount.volume_id, version: mount.version, manifest: mount.manifest, content });
    return { reused: false, ...counts };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  } finally {
    release();
  }
}

async function fetchManifest(gets: PresignedUrls, name: string): Promise<VolumeManifest> {
  const response = await transfer(gets, name, []);
  let json: unknown;
  try {
    json = await response.json();
  } catch {
    throw new Error(`the manifest ${name} is not JSON`);
  }
  const parsed = volumeManifest.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`the manifest ${name} is refused: ${issue.path.join(".")}: ${issue.message}`);
  }
  checkTree(name, parsed.data.entries);
  return parsed.data;
}

/** Every path once, and each entry's parent a directory entry: nothing can be placed through a link or outside the copy. */
function checkTree(name: string, entries: ManifestEntry[]): void {
  const types = new Map<string, ManifestEntry["type"]>();
  for (const entry of entries) {
    if (types.has(entry.path)) throw new Error(`the manifest ${name} is refused: ${entry.path} appears twice`);
    types.set(entry.path, entry.type);
  }
  for (const entry of entries) {
    const slash = entry.path.lastIndexOf("/");
    if (slash === -1) continue;
    const parent = entry.path.slice(0, slash);
    if (types.get(parent) !== "dir") throw new Error(`the manifest ${name} is refused: ${entry.path} is not inside a directory of the volume (${parent} is ${types.get(parent) ?? "absent"})`);
  }
}

/** Directories (parents first, as sorted), empty files of their sizes, links. */
async function createTree(staging: string, content: VolumeManifest): Promise<void> {
  const byDepth = [...content.entries].sort((a, b) => a.path.split("/").length - b.path.split("/").length);
  for (const entry of byDepth) {
    const path = join(staging, entry.path);
    if (entry.type === "dir") await mkdir(path, { mode: 0o700 });
  }
  for (const entry of content.entries) {
    const path = join(staging, entry.path);
    if (entry.type === "file") {
      const file = await open(path, "wx", 0o600);
      try {
        await file.truncate(entry.size);
      } finally {
        await file.close();
      }
    } else if (entry.type === "symlink") {
      await symlink(entry.target, path);
    }
  }
}

async function fillChunks(staging: string, content: VolumeManifest, chunks: Map<string, number>, gets: PresignedUrls, cache: ChunkCache) {
  const places = new Map<string, { path: string; offset: number }[]>();
  for (const entry of content.entries) {
    if (entry.type !== "file") continue;
    entry.chunks.forEach((hash, i) => {
      const list = places.get(hash) ?? [];
      list.push({ path: join(staging, entry.path), offset: i * VOLUME_CHUNK_BYTES });
      places.set(hash, list);
    });
  }
  const cached: string[] = [];
  const missing: string[] = [];
  for (const hash of chunks.keys()) ((await cache.has(hash)) ? cached : missing).push(hash);
  const counts = { fetched_bytes: 0, cached_bytes: 0 };
  const tasks = new ParallelTasks(PARALLEL_CHUNKS);
  const place = async (hash: string, bytes: Buffer) => {
    for (const { path, offset } of places.get(hash)!) {
      const file = await open(path, "r+");
      try {
        await file.write(bytes, 0, bytes.length, offset);
      } finally {
        await file.close();
      }
    }
  };
  const fetchChunk = async (hash: string, upcoming: string[]) => {
    const name = chunkName(hash);
    const bytes = Buffer.from(await (await transfer(gets, name, upcoming.map(chunkName))).arrayBuffer());
    if (bytes.length !== chunks.get(hash) || createHash("sha256").update(bytes).digest("hex") !== hash) {
      throw new Error(`the chunk ${name} in storage does not match its name (${bytes.length} bytes): the volume's stored content is damaged`);
    }
    counts.fetched_bytes += bytes.length;
    await cache.put(hash, bytes);
    return bytes;
  };
  try {
    for (const hash of cached) {
      await tasks.add(async () => {
        const bytes = await cache.read(hash);
        if (bytes) counts.cached_bytes += bytes.length;
        await place(hash, bytes ?? (await fetchChunk(hash, [])));
      });
    }
    for (const [i, hash] of missing.entries()) {
      await tasks.add(async () => place(hash, await fetchChunk(hash, missing.slice(i + 1, i + SIGN_BATCH))));
    }
  } finally {
    await tasks.done();
  }
  return counts;
}

/** Modes, owners and times, deepest first: a directory's time is set after what is written in it. */
async function setMetadata(staging: string, content: VolumeManifest, { owner }: RestoreOptions): Promise<void> {
  const deepestFirst = [...content.entries].sort((a, b) => b.path.split("/").length - a.path.split("/").length);
  for (const entry of deepestFirst) {
    const path = join(staging, entry.path);
    if (owner) await lchown(path, owner.uid, owner.gid);
    const time = new Date(entry.mtime_ms);
    if (entry.type === "symlink") {
      await lutimes(path, time, time);
      continue;
    }
    const handle = await open(path, "r");
    try {
      await handle.chmod(entry.mode & RESTORED_MODE_BITS);
      await handle.utimes(time, time);
    } finally {
      await handle.close();
    }
  }
  if (owner) await lchown(staging, owner.uid, owner.gid);
  await open(staging, "r").then(async (handle) => {
    await handle.chmod(0o755);
    await handle.close();
  });
}

async function statFiles(staging: string, content: VolumeManifest): Promise<Map<string, HashedFile>> {
  const stats = new Map<string, HashedFile>();
  for (const entry of content.entries) {
    if (entry.type !== "file") continue;
    const info = await lstat(join(staging, entry.path), { bigint: true });
    stats.set(entry.path, { stat: { ino: info.ino, size: info.size, mtimeNs: info.mtimeNs, ctimeNs: info.ctimeNs }, chunks: entry.chunks });
  }
  return stats;
}

/** The staged tree takes the copy's place; an old copy is moved aside first, then removed. */
async function replaceCopy(into: string, staging: string, copyExists: boolean): Promise<void> {
  if (!copyExists) {
    await rm(into, { recursive: true, force: true });
    await rename(staging, into);
    return;
  }
  const replaced = `${into}.replaced`;
  await rm(replaced, { recursive: true, force: true });
  await rename(into, replaced);
  await rename(staging, into);
  await rm(replaced, { recursive: true, force: true });
}
