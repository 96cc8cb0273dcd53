// One part of a resumable upload of a single file into a volume (PUT /v1/volumes/{id}/files with
// `upload`), the instances' protocol with no instance: the part's bytes are cut into chunks at the
// file's fixed 8 MiB offsets, hashed and stored through the binding (those the latest version holds
// are not stored again), and the volume's AccountDO appends them to the upload if the part starts at
// its staged size. So every part but the last is whole chunks. The final part makes the version: the
// latest version's manifest with the file put in (its directory made, as a tar PUT makes it), stored
// and committed by the AccountDO, which then ends the upload.
import { clock } from "../../../core/clock.ts";
import type { accountOf, Env } from "../../../core/env.ts";
import { ApiError, unwrap } from "../../../core/errors.ts";
import type { VolumeUploadState } from "../../../durable-objects/contracts/volume-uploads.ts";
import { manifestBytes, manifestChunks, VOLUME_CHUNK_BYTES, type ManifestEntry, type VolumeManifest } from "../../../protocol/volumes.ts";
import type { Credential } from "../../../durable-objects/contracts/members.ts";
import { ChunkUploads } from "./chunk-uploads.ts";
import { entryAt, inside, mergedManifest } from "./manifest-tree.ts";
import { objectKey, readManifest, volumePlace, writeManifest, EMPTY_MANIFEST, type VolumePlace } from "./volume-objects.ts";

type Account = ReturnType<typeof accountOf>;

export interface UploadPart {
  /** The volume's id or name, as the route was given it. */
  volume: string;
  upload: string;
  /** The file's path in the volume, relative ("a/b.bin"). */
  path: string;
  offset: number;
  final: boolean;
  /** The body's Content-Length. */
  length: number;
}

/** Mode of a file written by an upload, as an instance's upload writes it. */
const FILE_MODE = 0o644;
/** Commits tried when other versions of the volume come between the final part's read and its commit. */
const COMMIT_TRIES = 3;

const staged = (bytes: number) => ({ "Upload-Offset": String(bytes) });

/** The answer to the part: 202 with the staged size, or 204 once the final part made the file a version. */
export async function receivePart(env: Env, account: Account, credential: Credential, part: UploadPart, body: ReadableStream<Uint8Array> | null): Promise<Response> {
  const state = unwrap(await account.volumeUpload(credential, part.volume, part.upload, part.path));
  const { content } = state;
  if (state.written !== null) {
    // The final part sent again (its answer was lost) at the file's whole size: the file is there.
    if (part.final && part.offset === state.written) return new Response(null, { status: 204 });
    throw new ApiError("conflict", `upload ${part.upload} is complete: its ${state.written} bytes were written to the volume (a new file needs a new upload id)`, staged(state.written));
  }
  if (content.attached_read_write !== null) throw attachedReadWrite(part.volume, content.attached_read_write);
  if (!part.final && part.offset % VOLUME_CHUNK_BYTES !== 0) {
    throw new ApiError("invalid", `offset: every part but the final one is whole chunks of ${VOLUME_CHUNK_BYTES} bytes (8 MiB), so a part starts at a multiple of it, not at ${part.offset}`);
  }
  if (!part.final && part.length % VOLUME_CHUNK_BYTES !== 0) {
    throw new ApiError("invalid", `the request body: every part but the final one is whole chunks of ${VOLUME_CHUNK_BYTES} bytes (8 MiB), not ${part.length} bytes`);
  }
  if (part.offset !== state.offset) {
    throw new ApiError("conflict", `upload ${part.upload} has ${state.offset} bytes staged, not ${part.offset}: send the part from offset ${state.offset}`, staged(state.offset));
  }
  const place = volumePlace(env, content.account_id, content.volume_id);
  // Only for what the volume holds already and how much: one freed meanwhile is stored again, and the content checked at the end.
  const base = (await readManifest(place, content.manifest)) ?? EMPTY_MANIFEST;
  refuseTooLarge(part, state, base);
  // Its directory is made if absent, as for a tar; a file or link where it must be is refused before a byte is stored.
  if (part.offset === 0) fileIn(base, part.path, 0, []);
  const known = manifestChunks(base);
  const uploads = new ChunkUploads(place, known.keys());
  let cut: unknown = null;
  const hashes = body === null ? [] : await uploads.file(untilCut(body, part.length, (error) => (cut = error)), part.length);
  await uploads.settled();
  const chunks = hashes.map((hash, i) => ({ hash, size: Math.min(VOLUME_CHUNK_BYTES, part.length - i * VOLUME_CHUNK_BYTES) }));
  const whole = cut === null && chunks.length === Math.ceil(part.length / VOLUME_CHUNK_BYTES);
  const appended = await account.appendVolumeUpload(credential, {
    volume_id: content.volume_id, upload_id: part.upload, path: part.path, offset: part.offset,
    // A part cut short keeps its whole chunks: the next part goes on from them.
    chunks: whole ? chunks : chunks.filter((chunk) => chunk.size === VOLUME_CHUNK_BYTES),
    stored: [...new Set(hashes.filter((hash) => !known.has(hash)))], bytes_sent: uploads.bytesSent, final: part.final && whole,
  });
  const { offset, chunks: fileChunks } = unwrap(appended);
  if (!whole) throw new ApiError("bad_request", `the part broke off: ${offset} bytes are staged`, staged(offset));
  if (!part.final) return new Response(null, { status: 202, headers: staged(offset) });
  await commitFile(account, credential, place, part, offset, fileChunks!);
  return new Response(null, { status: 204 });
}

/** The body's first `length` bytes until it ends or breaks off (`onCut` is told why): what arrived of it is kept. */
async function* untilCut(body: ReadableStream<Uint8Array>, length: number, onCut: (error: unknown) => void): AsyncIterable<Uint8Array> {
  let left = length;
  try {
    for await (const piece of body) {
      if (left === 0) return;
      yield piece.byteLength > left ? piece.subarray(0, left) : piece;
      left -= Math.min(left, piece.byteLength);
    }
  } catch (error) {
    onCut(error);
  }
}

/** 413 before the part is read, when the file alone (what is staged with this part) would put the volume over its size. */
function refuseTooLarge(part: UploadPart, state: VolumeUploadState, base: VolumeManifest): void {
  const { max_bytes: maxBytes } = state.content;
  const fileBytes = part.offset + part.length;
  const replaced = [entryAt(base, part.path), ...inside(base, part.path)].reduce((sum, entry) => sum + (entry?.type === "file" ? entry.size : 0), 0);
  const content = manifestBytes(base) - replaced + fileBytes;
  const uploads = state.others_bytes + fileBytes;
  if (content <= maxBytes && uploads <= maxBytes) return;
  const what = content > maxBytes ? `the volume would hold at least ${content} bytes with this file` : `the volume's uploads would stage ${uploads} bytes together`;
  throw new ApiError("payload_too_large",
    `size_gb: ${what}, over its size_gb (${maxBytes / 1e9} GB, ${maxBytes} bytes); upload ${part.upload} has ${part.offset} bytes staged: ` +
    "grow the volume (PATCH size_gb), then send the part again (an upload untouched for an hour is forgotten)", staged(part.offset));
}

/**
 * The file of `size` bytes in `chunks` put into the latest version and committed as the next; tried
 * again when another version came between. Refused, the upload stays staged, its final part to be
 * sent again.
 */
async function commitFile(account: Account, credential: Credential, place: VolumePlace, part: UploadPart, size: number, chunks: string[]): Promise<void> {
  for (let tries = 1; ; tries++) {
    const { content } = unwrap(await account.volumeContent(credential, place.volumeId));
    if (content.attached_read_write !== null) throw attachedReadWrite(part.volume, content.attached_read_write);
    const base = await readManifest(place, content.manifest);
    if (!base) {
      if (tries < COMMIT_TRIES) continue;
      throw new ApiError("conflict", `volume ${part.volume} is getting new versions faster than the file can be put in: send the final part again from offset ${size}`, staged(size));
    }
    const manifest = fileIn(base, part.path, size, chunks);
    const bytes = manifestBytes(manifest);
    if (bytes > content.max_bytes) {
      throw new ApiError("payload_too_large",
        `size_gb: the volume would hold ${bytes} bytes, over its size_gb (${content.max_bytes / 1e9} GB, ${content.max_bytes} bytes); ` +
        `upload ${part.upload} stays staged: grow the volume (PATCH size_gb), then send the final part again from offset ${size}`, staged(size));
    }
    const name = await writeManifest(place, manifest);
    const committed = await account.completeVolumeUpload(credential, { volume_id: place.volumeId, upload_id: part.upload, base_version: content.version, manifest: name });
    if (committed.ok) return;
    // Refused, so no version names it.
    await place.bucket.delete(objectKey(place, name));
    const moved = committed.code === "conflict" && tries < COMMIT_TRIES && unwrap(await account.volumeContent(credential, place.volumeId)).content.version !== content.version;
    if (!moved) unwrap(committed);
  }
}

/** `base` with the file at `path` put in (parents made, what was there replaced); 409 when a file or link is where a parent must be. */
function fileIn(base: VolumeManifest, path: string, size: number, chunks: string[]): VolumeManifest {
  const nowMs = clock.now();
  const file: ManifestEntry = { type: "file", path, mode: FILE_MODE, mtime_ms: nowMs, size, chunks };
  return mergedManifest(base, "", [file], nowMs);
}

const attachedReadWrite = (volume: string, instance: string) =>
  new ApiError("conflict", `volume ${volume} is attached read-write to instance ${instance}: only that instance writes it until it is destroyed`);
