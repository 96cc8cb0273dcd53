// A file or directory of a volume's version as a tar archive, for the files route's GET: written as
// it is read, each chunk fetched through the binding when the archive is about to reach it (a few
// ahead, so small files do not wait on one another), never the whole content in memory. The path's
// own name is the archive's root, as `docker cp` makes it; the volume's root is archived as its
// content alone.
import type { ManifestEntry, VolumeManifest } from "../../../protocol/volumes.ts";
import { chunkName } from "../../../protocol/volumes.ts";
import { tarArchiveBytes } from "../../../standards/tar.ts";
import { tarStream, type TarWriteEntry } from "../../../standards/tar-write.ts";
import { entryAt, inside } from "./manifest-tree.ts";
import { objectKey, type VolumePlace } from "./volume-objects.ts";

/** Chunks asked for ahead of the one being written. */
const GETS_AHEAD = 4;

export interface Archive {
  stream: ReadableStream<Uint8Array>;
  /** The archive's exact length. */
  bytes: number;
}

/** The archive of `path` (a volume path, "" for the root), or null when the version has nothing there. */
export function archiveOf(place: VolumePlace, manifest: VolumeManifest, path: string): Archive | null {
  let entries: ManifestEntry[];
  let cut: number;
  if (path === "") {
    entries = manifest.entries;
    cut = 0;
  } else {
    const top = entryAt(manifest, path);
    if (!top) return null;
    entries = top.type === "dir" ? [top, ...inside(manifest, path)] : [top];
    cut = path.lastIndexOf("/") + 1;
  }
  const chunks = new ChunkReads(place, entries.flatMap((entry) => (entry.type === "file" ? entry.chunks : [])));
  const tarEntries = entries.map((entry) => tarEntryOf(entry, entry.path.slice(cut), chunks));
  const stream = tarStream(tarEntries);
  return { stream, bytes: tarArchiveBytes(tarEntries) };
}

function tarEntryOf(entry: ManifestEntry, name: string, chunks: ChunkReads): TarWriteEntry {
  const mtime = Math.floor(entry.mtime_ms / 1000);
  if (entry.type === "dir") return { name, type: "directory", mode: entry.mode, size: 0, mtime };
  if (entry.type === "symlink") return { name, type: "symlink", mode: 0o777, size: 0, mtime, linkName: entry.target };
  return { name, type: "file", mode: entry.mode, size: entry.size, mtime, body: chunks.file(entry) };
}

/** The archive's chunks in the order it writes them, each asked for while the few before it are written. */
class ChunkReads {
  private readonly place: VolumePlace;
  private readonly order: string[];
  /** Reads asked for and not yet taken, by their place in `order`. */
  private readonly asked = new Map<number, Promise<R2ObjectBody | null>>();
  private askedUpTo = 0;
  private next = 0;

  constructor(place: VolumePlace, order: string[]) {
    this.place = place;
    this.order = order;
  }

  /** The bytes of `entry`'s chunks, read when the archive reaches them. */
  async *file(entry: Extract<ManifestEntry, { type: "file" }>): AsyncGenerator<Uint8Array> {
    for (const hash of entry.chunks) {
      const object = await this.take(hash);
      if (!object) throw new Error(`chunk ${hash} of ${entry.path} is not stored in volume ${this.place.volumeId}`);
      yield* object.body;
    }
  }

  private take(hash: string): Promise<R2ObjectBody | null> {
    if (this.order[this.next] !== hash) throw new Error(`chunk ${hash} read out of the archive's order`);
    for (; this.askedUpTo <= Math.min(this.next + GETS_AHEAD, this.order.length - 1); this.askedUpTo++) {
      const asked = this.place.bucket.get(objectKey(this.place, chunkName(this.order[this.askedUpTo]!)));
      // Read or not (the archive's reader may stop first), a failed read is not left unhandled.
      asked.catch(() => undefined);
      this.asked.set(this.askedUpTo, asked);
    }
    const taken = this.asked.get(this.next)!;
    this.asked.delete(this.next++);
    return taken;
  }
}
