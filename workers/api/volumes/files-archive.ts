// A file or directory of a volume's version as a tar archive, for the files route's GET: written as
// it is read, each chunk fetched through the binding when the archive is about to reach it (a few
// ahead, so small files do not wait on one another), never the whole content in memory. A chunk's
// bytes are piped from its read into the response by the runtime itself, with no JavaScript per
// piece: only headers and padding are written here. The path's own name is the archive's root, as
// `docker cp` makes it; the volume's root is archived as its content alone.
import type { ManifestEntry, VolumeManifest } from "../../../protocol/volumes.ts";
import { chunkName, VOLUME_CHUNK_BYTES } from "../../../protocol/volumes.ts";
import { TAR_END, tarArchiveBytes, tarEntryHead, tarPadding, type TarEntry } from "../../../standards/tar.ts";
import { ApiError } from "../../../core/errors.ts";
import { entryAt, inside, shown } from "./manifest-tree.ts";
import { MAX_BUCKET_CALLS, objectKey, type VolumePlace } from "./volume-objects.ts";

/** Chunks asked for ahead of the one being written. */
const GETS_AHEAD = 4;

type FileEntry = Extract<ManifestEntry, { type: "file" }>;

export interface Archive {
  /** The archive's exact length. */
  bytes: number;
  /** Writes the archive into `writable` and closes it; aborts it, and rejects, when a chunk cannot be read. */
  writeTo(writable: WritableStream<Uint8Array>): Promise<void>;
}

/** The archive of `path` (a volume path, "" for the root), or null when the version has nothing there; one of more chunks than a request may read is refused (400). */
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
  const reads = entries.reduce((sum, entry) => sum + (entry.type === "file" ? entry.chunks.length : 0), 0);
  if (reads > MAX_BUCKET_CALLS) {
    throw new ApiError("invalid", `path: ${shown(path)} holds ${reads} chunks, more than one archive reads (${MAX_BUCKET_CALLS}, about ${Math.floor((MAX_BUCKET_CALLS * 8) / 1024)} GiB): ask for the directories in it one at a time`);
  }
  const members = entries.map((entry) => ({ tar: tarEntryOf(entry, entry.path.slice(cut)), file: entry.type === "file" ? entry : null }));
  return {
    bytes: tarArchiveBytes(members.map((member) => member.tar)),
    writeTo: (writable) => writeArchive(place, members, writable),
  };
}

function tarEntryOf(entry: ManifestEntry, name: string): TarEntry {
  const mtime = Math.floor(entry.mtime_ms / 1000);
  if (entry.type === "dir") return { name, type: "directory", mode: entry.mode, size: 0, mtime };
  if (entry.type === "symlink") return { name, type: "symlink", mode: 0o777, size: 0, mtime, linkName: entry.target };
  return { name, type: "file", mode: entry.mode, size: entry.size, mtime };
}

async function writeArchive(place: VolumePlace, members: { tar: TarEntry; file: FileEntry | null }[], writable: WritableStream<Uint8Array>): Promise<void> {
  const chunks = new ChunkReads(place, members.flatMap((member) => member.file?.chunks ?? []));
  // The stream is locked only for each write and each pipe: a failure anywhere can abort it.
  const write = async (bytes: Uint8Array) => {
    const writer = writable.getWriter();
    try {
      await writer.write(bytes);
    } finally {
      writer.releaseLock();
    }
  };
  try {
    for (const { tar, file } of members) {
      await write(tarEntryHead(tar));
      if (!file) continue;
      for (const [i, hash] of file.chunks.entries()) {
        const object = await chunks.take(hash);
        const size = Math.min(VOLUME_CHUNK_BYTES, file.size - i * VOLUME_CHUNK_BYTES);
        if (!object) throw new Error(`chunk ${hash} of ${file.path} is not stored in volume ${place.volumeId}`);
        if (object.size !== size) throw new Error(`chunk ${hash} of ${file.path} is stored with ${object.size} bytes, not ${size}`);
        await object.body.pipeTo(writable, { preventClose: true });
      }
      const padding = tarPadding(file.size);
      if (padding.byteLength > 0) await write(padding);
    }
    await write(TAR_END);
    await writable.close();
  } catch (error) {
    await writable.abort(error).catch(() => undefined);
    throw error;
  }
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

  /** The next chunk's read: `hash` must be the next in the archive's order. */
  take(hash: string): Promise<R2ObjectBody | null> {
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
