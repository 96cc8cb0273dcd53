// A snapshot's content copied into a new volume, for `POST /v1/volumes` with `from_snapshot`: its
// manifest and every chunk it names, from the snapshot's volume's prefix to the new volume's, through
// the binding (each object streamed from its get into its put, never through a Durable Object). The
// manifest is copied last, under the same name; the AccountDO's createVolume then checks the copy and
// makes the volume in one step. A copy that fails deletes what it copied: the new prefix is its alone.
import type { Env } from "../../../core/env.ts";
import { ApiError } from "../../../core/errors.ts";
import { chunkName, manifestBytes, manifestChunks, volumePrefix } from "../../../protocol/volumes.ts";
import type { SnapshotSource } from "../../../durable-objects/contracts/volumes.ts";
import { MAX_BUCKET_CALLS, objectKey, readManifest, volumePlace, type VolumePlace } from "./volume-objects.ts";

/** Objects copied at once: each holds two of the Worker's 6 simultaneous connections, its get's and its put's. */
const COPIES_AT_ONCE = 3;
/** R2 lists and deletes at most this many keys a call. */
const R2_BATCH = 1000;
/** The most objects (chunks and the manifest) one request copies: a read and a write each, with calls left to delete them again. */
const MAX_COPIED_OBJECTS = Math.floor((MAX_BUCKET_CALLS - 20) / 2);

/**
 * Copies `source`'s content under volume `to.volumeId` (fresh, of `to.maxBytes`) of the same account;
 * the manifest's name there, or null for an empty snapshot (nothing to copy). Refusals: content past
 * `to.maxBytes` (400 invalid naming size_gb) or more chunks than one request can copy (400 naming
 * from_snapshot), both before anything is copied; a snapshot whose objects are gone meanwhile (404).
 */
export async function copySnapshot(env: Env, source: SnapshotSource, to: { volumeId: string; maxBytes: number }): Promise<string | null> {
  if (source.manifest === null) return null;
  const from = volumePlace(env, source.account_id, source.volume_id);
  const into = volumePlace(env, source.account_id, to.volumeId);
  const manifest = await readManifest(from, source.manifest);
  if (!manifest) throw gone();
  const bytes = manifestBytes(manifest);
  if (bytes > to.maxBytes) {
    throw new ApiError("invalid", `size_gb: the snapshot holds ${bytes} bytes, over the new volume's size_gb (${to.maxBytes / 1e9} GB); leave size_gb out or give at least ${Math.ceil(bytes / 1e9)}`);
  }
  const names = [...manifestChunks(manifest).keys()].map(chunkName);
  if (names.length > MAX_COPIED_OBJECTS - 1) {
    throw new ApiError("invalid", `from_snapshot: the snapshot holds ${names.length} chunks, more than one request copies (${MAX_COPIED_OBJECTS - 1}, about ${Math.floor(((MAX_COPIED_OBJECTS - 1) * 8) / 1024)} GiB)`);
  }
  try {
    for (let i = 0; i < names.length; i += COPIES_AT_ONCE) {
      // Every copy of the batch ends before a failure is handled: none writes after the deletion.
      const copies = await Promise.allSettled(names.slice(i, i + COPIES_AT_ONCE).map((name) => copyObject(from, into, name)));
      const failed = copies.find((copy) => copy.status === "rejected");
      if (failed) throw failed.reason;
    }
    await copyObject(from, into, source.manifest);
  } catch (error) {
    await deletePrefix(env, volumePrefix(source.account_id, to.volumeId));
    throw error;
  }
  return source.manifest;
}

async function copyObject(from: VolumePlace, into: VolumePlace, name: string): Promise<void> {
  const object = await from.bucket.get(objectKey(from, name));
  if (!object) throw gone();
  // R2 takes a stream of a known length: the object's own.
  const { readable, writable } = new FixedLengthStream(object.size);
  const piped = object.body.pipeTo(writable);
  // A put that fails first leaves the pipe to fail after it: its error is the put's.
  piped.catch(() => undefined);
  await into.bucket.put(objectKey(into, name), readable, { httpMetadata: object.httpMetadata });
  await piped;
}

/** Everything under `prefix`, deleted. */
async function deletePrefix(env: Env, prefix: string): Promise<void> {
  for (;;) {
    const page = await env.VOLUMES.list({ prefix, limit: R2_BATCH });
    if (page.objects.length === 0) return;
    await env.VOLUMES.delete(page.objects.map((object) => object.key));
  }
}

const gone = () => new ApiError("not_found", "from_snapshot: the snapshot's content is no longer stored (the snapshot was deleted meanwhile)");
