// What `gpu cp` sends up, packed here rather than by the host's `tar`: the archive's size is known
// before its first byte goes, so the PUT carries a Content-Length. The same bytes sent chunked (as a
// piped `tar -c` had to be) crossed the local stack at half the rate (docs/benchmarks.md).
// Files, directories, symbolic links and FIFOs are packed as what they are, each name by itself
// (a directory's contents are named on their own, as `tar --no-recursion` takes them); sockets and
// devices cannot be made in an instance and are left out, each named to `skipped` (FIFOs too, for a
// volume). The name the user
// gave is followed when it is a link, as `cp` and `scp` follow theirs: what it points at goes; it
// can take another name in the archive (a new name at the destination, as `cp -r` gives one).
import type { Stats } from "node:fs";
import { createReadStream } from "node:fs";
import { lstat, readlink, stat } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { TAR_END, tarArchiveBytes, tarEntryHead, tarPadding, type TarEntry } from "../../standards/tar.ts";
import { CliError } from "../errors.ts";

/** Big reads: each is a write to the request, and fewer, bigger writes cross the service cheaper. */
const READ_BYTES = 1024 * 1024;

export interface TarPlan {
  entries: (TarEntry & { local: string })[];
  /** The archive's size in bytes. */
  bytes: number;
}

/** What goes in an archive. */
export interface TarSelection {
  /** The names, relative to `parent`, `/`-separated, each by itself (a directory's contents are named on their own). */
  parent: string;
  names: readonly string[];
  /** The name the user gave, followed if it is a link. */
  given: string;
  /** The name `given` takes in the archive (its own unless given). */
  as?: string;
  /** FIFOs go as what they are unless false (a volume stores none). */
  fifos?: boolean;
  /** Told of each name left out, and what it is. */
  skipped(name: string, what: string): void;
}

/** The archive of the names as they are now on disk. */
export async function planTar({ parent, names, given, as = given, fifos = true, skipped }: TarSelection): Promise<TarPlan> {
  const entries: TarPlan["entries"] = [];
  for (const name of names) {
    const local = join(parent, name);
    const stats = await (name === given ? stat : lstat)(local).catch(() => null);
    if (!stats) throw new CliError(`no file or directory ${local}`);
    const type = typeOf(stats);
    if (typeof type === "object" || (type === "fifo" && !fifos)) {
      skipped(name, typeof type === "object" ? type.unsupported : "a FIFO");
      continue;
    }
    const entry = { name: renamed(name, given, as), local, type, mode: stats.mode, mtime: Math.floor(stats.mtimeMs / 1000), size: type === "file" ? stats.size : 0 };
    entries.push(type === "symlink" ? { ...entry, linkName: await readlink(local) } : entry);
  }
  return { entries, bytes: tarArchiveBytes(entries) };
}

/** `name` (`given` or a name under it) with `given` named `as`. */
export function renamed(name: string, given: string, as: string): string {
  if (name === given) return as;
  return name.startsWith(`${given}/`) ? as + name.slice(given.length) : name;
}

/** The archive's bytes, exactly `plan.bytes` of them; fails when a file is shorter than it was when planned. */
export function packTar(plan: TarPlan): Readable {
  async function* blocks() {
    for (const entry of plan.entries) {
      yield tarEntryHead(entry);
      if (entry.size === 0) continue;
      let read = 0;
      // A file that grew since is sent as it was planned; one that shrank cannot be, and says so.
      for await (const chunk of createReadStream(entry.local, { start: 0, end: entry.size - 1, highWaterMark: READ_BYTES })) {
        read += (chunk as Buffer).byteLength;
        yield chunk as Buffer;
      }
      if (read < entry.size) throw new CliError(`${entry.local} changed while it was sent: ${read} of its ${entry.size} bytes were left`);
      yield tarPadding(entry.size);
    }
    yield TAR_END;
  }
  return Readable.from(blocks(), { objectMode: false });
}

function typeOf(stats: Stats): TarEntry["type"] | { unsupported: string } {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  if (stats.isSymbolicLink()) return "symlink";
  if (stats.isFIFO()) return "fifo";
  return { unsupported: stats.isSocket() ? "a socket" : "a device" };
}
