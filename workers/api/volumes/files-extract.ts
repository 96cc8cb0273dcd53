// A tar archive extracted into a directory of a volume, as the files route's PUT receives it: read as it
// streams in, each file cut into chunks stored as they fill (only those the volume lacks), and the new
// version's manifest made from the base version's with the archive's entries put in. Nothing here
// commits: the route stores the manifest and asks the volume's AccountDO to make it the next version.
import { ApiError } from "../../../core/errors.ts";
import { manifestBytes, manifestChunks, volumePath, type ManifestEntry, type VolumeManifest } from "../../../protocol/volumes.ts";
import { readTar, TarError } from "../../../standards/tar-read.ts";
import { ChunkUploads } from "./chunk-uploads.ts";
import { mergedManifest, shown } from "./manifest-tree.ts";
import type { VolumePlace } from "./volume-objects.ts";

export interface Extracted {
  manifest: VolumeManifest;
  /** The bytes of the chunks stored for it. */
  bytesSent: number;
}

const MAX_LINK_TARGET = 4096;

const refused = (message: string) => new ApiError("bad_request", `the request body (a tar archive): ${message}`);

/**
 * The version `archive` makes of `base` when extracted into `target` (a volume path, "" for the
 * root); its chunks are stored when this returns. Refusals: a malformed archive or an entry a volume
 * cannot hold (400), content past `maxBytes` (413), a file where a directory must be (409).
 */
export async function extractArchive(place: VolumePlace, base: VolumeManifest, target: string, archive: ReadableStream<Uint8Array>, maxBytes: number, nowMs: number): Promise<Extracted> {
  const uploads = new ChunkUploads(place, manifestChunks(base).keys());
  const added: ManifestEntry[] = [];
  // Each file's size by path: a path the archive holds twice counts once, as the later one replaces it.
  const sizes = new Map<string, number>();
  let addedBytes = 0;
  try {
    for await (const { entry, body } of readTar(archive)) {
      const path = entry.name === "." ? target : target === "" ? entry.name : `${target}/${entry.name}`;
      if (path === "") continue;
      if (!volumePath.safeParse(path).success) throw refused(`${entry.name} would be ${shown(path)} in the volume, longer than 4096 bytes`);
      const mtime_ms = entry.mtime * 1000;
      if (entry.type === "directory") {
        added.push({ type: "dir", path, mode: entry.mode, mtime_ms });
      } else if (entry.type === "symlink") {
        if (entry.linkName!.length > MAX_LINK_TARGET) throw refused(`the symbolic link ${entry.name} has a target longer than ${MAX_LINK_TARGET} characters`);
        added.push({ type: "symlink", path, target: entry.linkName!, mtime_ms });
      } else if (entry.type === "file") {
        addedBytes += entry.size - (sizes.get(path) ?? 0);
        sizes.set(path, entry.size);
        if (addedBytes > maxBytes) throw tooLarge(`at least ${addedBytes}`, maxBytes);
        added.push({ type: "file", path, mode: entry.mode, mtime_ms, size: entry.size, chunks: await uploads.file(body, entry.size) });
      } else {
        throw refused(`${entry.name} is a FIFO: a volume holds files, directories and symbolic links`);
      }
    }
    await uploads.settled();
  } catch (error) {
    // Stores still under way end before the refusal is answered: nothing is written after it.
    await uploads.settled().catch(() => undefined);
    throw error instanceof TarError ? refused(error.message) : error;
  }
  const manifest = mergedManifest(base, target, added, nowMs);
  const bytes = manifestBytes(manifest);
  if (bytes > maxBytes) throw tooLarge(String(bytes), maxBytes);
  return { manifest, bytesSent: uploads.bytesSent };
}

const tooLarge = (bytes: string, maxBytes: number) =>
  new ApiError("payload_too_large", `size_gb: the volume would hold ${bytes} bytes, over its size_gb (${maxBytes / 1e9} GB, ${maxBytes} bytes); nothing is saved: grow the volume (PATCH size_gb) first`);
