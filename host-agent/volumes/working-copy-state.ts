// What the agent remembers of a volume's working copy, in a folder beside it (`<dir>.volume-state/`,
// never inside it: the tenant writes the working copy, not this):
// - base.json: the version the copy was restored from or last saved as, with its manifest, which a
//   save compares with. It changes only once a version is committed (or restored): a save that dies
//   before its commit leaves it as it was, so the next save sends again what that one did not commit.
// - stats.json: each file's chunks by its path, size, mtime, ctime and inode, so a save reads only
//   files changed since they were last hashed. Any hash here describes bytes read from that file;
//   it is only a cache, written whenever a scan read something.
// - pending.json: a commit sent whose answer did not come back (the connection dropped): the
//   platform may have made it a version. The next save sends it again first (the platform answers a
//   save it already committed with its version), so the copy never saves against a base the volume
//   has left.
// - mount.json: the mount as the platform last named it (a start's command: the volume's latest
//   version and its size now), which stands over the one the container was created with.
// All are written whole under a temporary name then renamed.
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { volumeManifest, volumeMount, VOLUME_OBJECT_NAME, type VolumeManifest, type VolumeMount } from "../../protocol/volumes.ts";

export interface Base {
  volume_id: string;
  version: number;
  /** Null for version 0, the empty volume. */
  manifest: string | null;
  content: VolumeManifest;
}

const base = z.object({
  volume_id: z.string(),
  version: z.number().int().min(0),
  manifest: z.string().regex(VOLUME_OBJECT_NAME).nullable(),
  content: volumeManifest,
});

/** A commit asked and not answered: the version it would make of `base_version`. */
export interface Pending {
  base_version: number;
  manifest: string;
  content: VolumeManifest;
}

const pending = z.object({ base_version: z.number().int().min(0), manifest: z.string().regex(VOLUME_OBJECT_NAME), content: volumeManifest });

/** A file as it was when its chunks were hashed. */
export interface FileStat {
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

export interface HashedFile {
  stat: FileStat;
  chunks: string[];
}

/** `[ino, size, mtime_ns, ctime_ns, chunks]` by path, the numbers as decimal strings. */
const stats = z.record(z.string(), z.tuple([z.string(), z.string(), z.string(), z.string(), z.array(z.string())]));

export const sameStat = (a: FileStat, b: FileStat) => a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;

/** The state folder of the working copy at `dir`. */
export const stateDirOf = (dir: string) => join(dirname(dir), `${basename(dir)}.volume-state`);

export async function readBase(dir: string): Promise<Base | null> {
  const text = await readFile(join(stateDirOf(dir), "base.json"), "utf8").catch(() => null);
  if (text === null) return null;
  const parsed = base.safeParse(parseJson(text));
  return parsed.success ? parsed.data : null;
}

export async function writeBase(dir: string, value: Base): Promise<void> {
  await writeWhole(dir, "base.json", JSON.stringify(value));
}

/** Forgets the base: the copy is about to stop being what it names. */
export async function removeBase(dir: string): Promise<void> {
  await rm(join(stateDirOf(dir), "base.json"), { force: true });
}

export async function readPending(dir: string): Promise<Pending | null> {
  const text = await readFile(join(stateDirOf(dir), "pending.json"), "utf8").catch(() => null);
  const parsed = text === null ? null : pending.safeParse(parseJson(text));
  return parsed?.success ? parsed.data : null;
}

export async function writePending(dir: string, value: Pending): Promise<void> {
  await writeWhole(dir, "pending.json", JSON.stringify(value));
}

export async function removePending(dir: string): Promise<void> {
  await rm(join(stateDirOf(dir), "pending.json"), { force: true });
}

export async function readStats(dir: string): Promise<Map<string, HashedFile>> {
  const text = await readFile(join(stateDirOf(dir), "stats.json"), "utf8").catch(() => null);
  const parsed = text === null ? null : stats.safeParse(parseJson(text));
  const files = new Map<string, HashedFile>();
  if (!parsed?.success) return files;
  for (const [path, [ino, size, mtimeNs, ctimeNs, chunks]] of Object.entries(parsed.data)) {
    files.set(path, { stat: { ino: BigInt(ino), size: BigInt(size), mtimeNs: BigInt(mtimeNs), ctimeNs: BigInt(ctimeNs) }, chunks });
  }
  return files;
}

export async function writeStats(dir: string, files: Map<string, HashedFile>): Promise<void> {
  const record: z.infer<typeof stats> = {};
  for (const [path, { stat, chunks }] of files) record[path] = [String(stat.ino), String(stat.size), String(stat.mtimeNs), String(stat.ctimeNs), chunks];
  await writeWhole(dir, "stats.json", JSON.stringify(record));
}

export async function readMount(dir: string): Promise<VolumeMount | null> {
  const text = await readFile(join(stateDirOf(dir), "mount.json"), "utf8").catch(() => null);
  const parsed = text === null ? null : volumeMount.safeParse(parseJson(text));
  return parsed?.success ? parsed.data : null;
}

export async function writeMount(dir: string, value: VolumeMount): Promise<void> {
  await writeWhole(dir, "mount.json", JSON.stringify(value));
}

/** Removes the working copy's state (the copy itself is the caller's). */
export async function removeState(dir: string): Promise<void> {
  await rm(stateDirOf(dir), { recursive: true, force: true });
}

async function writeWhole(dir: string, name: string, text: string): Promise<void> {
  const folder = stateDirOf(dir);
  await mkdir(folder, { recursive: true });
  const temporary = join(folder, `${name}.tmp`);
  await writeFile(temporary, text);
  await rename(temporary, join(folder, name));
}

/** A file cut short by a full disk reads as no state, not as an error. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
