// What a working copy holds, read without ever leaving it: the tenant writes the copy while the agent
// (root on a host) reads it, so a directory swapped for a symbolic link midway must not lead the
// agent into the host's files. On Linux each directory is opened without following a link and read
// through its descriptor (/proc/self/fd/N/<name>, as openat would), and a file is opened by path
// without following a link, then accepted only if its descriptor resolves to the path expected.
// Directories, regular files and symbolic links are kept (a link as its target, never followed);
// anything else (sockets, pipes, devices) is skipped, as is a name that is not UTF-8 (a manifest's
// paths are JSON strings).
import { constants, existsSync } from "node:fs";
import { lstat, open, readdir, readlink, realpath, type FileHandle } from "node:fs/promises";
import type { FileStat } from "./working-copy-state.ts";

const PROC_FD = "/proc/self/fd";
const ANCHORED = existsSync(PROC_FD);

export type ScannedEntry =
  | { type: "dir"; path: string; mode: number; mtime_ms: number }
  | { type: "file"; path: string; mode: number; mtime_ms: number; size: number; stat: FileStat }
  | { type: "symlink"; path: string; target: string; mtime_ms: number };

export interface Scan {
  /** The copy's real path: files are opened under it. */
  root: string;
  /** Sorted by path in byte order (so a directory comes before what it holds). */
  entries: ScannedEntry[];
  /** Paths left out: neither directory, file nor link, or not UTF-8. */
  skipped: string[];
}

/** Milliseconds, rounded: a time set from whole milliseconds reads back as them. */
export const msOf = (ns: bigint) => (ns < 0n ? 0 : Number((ns + 500_000n) / 1_000_000n));

export async function scanWorkingCopy(dir: string): Promise<Scan> {
  const top = await lstat(dir);
  if (!top.isDirectory()) throw new Error(`the working copy ${dir} is not a directory`);
  const root = await realpath(dir);
  const entries: ScannedEntry[] = [];
  const skipped: string[] = [];

  const walk = async (handle: FileHandle, at: string, relative: string): Promise<void> => {
    const base = ANCHORED ? `${PROC_FD}/${handle.fd}` : at;
    for (const raw of await readdir(base, { encoding: "buffer" })) {
      const name = raw.toString("utf8");
      const path = relative === "" ? name : `${relative}/${name}`;
      if (!Buffer.from(name, "utf8").equals(raw)) {
        skipped.push(path);
        continue;
      }
      const info = await lstat(`${base}/${name}`, { bigint: true }).catch(() => null);
      if (info === null) continue;
      const mtime_ms = msOf(info.mtimeNs);
      if (info.isDirectory()) {
        entries.push({ type: "dir", path, mode: Number(info.mode & 0o7777n), mtime_ms });
        const child = await open(`${base}/${name}`, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW).catch(() => null);
        if (child === null) continue;
        try {
          await walk(child, `${at}/${name}`, path);
        } finally {
          await child.close();
        }
      } else if (info.isFile()) {
        const stat = { ino: info.ino, size: info.size, mtimeNs: info.mtimeNs, ctimeNs: info.ctimeNs };
        entries.push({ type: "file", path, mode: Number(info.mode & 0o7777n), mtime_ms, size: Number(info.size), stat });
      } else if (info.isSymbolicLink()) {
        const target = await readlink(`${base}/${name}`).catch(() => null);
        if (target !== null) entries.push({ type: "symlink", path, target, mtime_ms });
      } else {
        skipped.push(path);
      }
    }
  };

  const handle = await open(root, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    await walk(handle, root, "");
  } finally {
    await handle.close();
  }
  const keyed = entries.map((entry) => ({ key: Buffer.from(entry.path), entry }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  return { root, entries: keyed.map(({ entry }) => entry), skipped };
}

/** Opens the file at `path` under the copy's real `root` for reading, or null if what is there now is not that file. */
export async function openScannedFile(root: string, path: string): Promise<FileHandle | null> {
  const expected = `${root}/${path}`;
  // O_NONBLOCK: a pipe put in the file's place must not hold the save waiting for a writer.
  const handle = await open(expected, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (handle === null) return null;
  const where = ANCHORED ? await readlink(`${PROC_FD}/${handle.fd}`).catch(() => null) : expected;
  if (where !== expected || !(await handle.stat()).isFile()) {
    await handle.close();
    return null;
  }
  return handle;
}
