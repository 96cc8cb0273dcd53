// What a save stored in the bucket, checked before it becomes a version: its manifest read through
// the binding and validated, every chunk it names there at its size (the chunks a kept manifest of
// the volume already names were checked when that one was committed), and its content within the
// volume's size.
import type { Env } from "../../../core/env.ts";
import { fail, type Failure, type Ok } from "../../../core/errors.ts";
import { chunkName, manifestBytes, manifestChunks, volumeManifest, volumeObjectKey, VOLUME_OBJECT_NAME, type VolumeManifest } from "../../../protocol/volumes.ts";
import type { Sql } from "../../sql.ts";
import { isKeptChunk } from "./chunk-refs.ts";

/** How many chunks are asked about at once. */
const HEADS_AT_ONCE = 32;

export interface StoredContent {
  manifest: VolumeManifest;
  /** Each chunk it names once, with its size. */
  chunks: Map<string, number>;
  bytes: number;
}

export interface ContentPlace {
  env: Env;
  sql: Sql;
  accountId: string;
  volumeId: string;
}

/** The save's content under `manifestName`, checked; or why it cannot be a version of a volume of `maxBytes`. */
export async function storedContent(place: ContentPlace, manifestName: string, maxBytes: number): Promise<Ok<{ content: StoredContent }> | Failure> {
  if (!VOLUME_OBJECT_NAME.test(manifestName) || !manifestName.startsWith("manifests/")) {
    return fail("invalid", `manifest: must be a manifest's name (manifests/<16 to 64 of [A-Za-z0-9_-]>.json), not ${manifestName}`);
  }
  const read = await readManifest(place, manifestName);
  if (!read.ok) return read;
  const { manifest } = read;
  const bytes = manifestBytes(manifest);
  if (bytes > maxBytes) {
    return fail("invalid", `manifest: its content is ${bytes} bytes, over the volume's size_gb (${maxBytes} bytes); the last version stays`);
  }
  const chunks = manifestChunks(manifest);
  const unchecked = [...chunks].filter(([hash]) => !isKeptChunk(place.sql, place.volumeId, hash));
  for (let i = 0; i < unchecked.length; i += HEADS_AT_ONCE) {
    const batch = unchecked.slice(i, i + HEADS_AT_ONCE);
    const heads = await Promise.all(batch.map(([hash]) => place.env.VOLUMES.head(volumeObjectKey(place.accountId, place.volumeId, chunkName(hash)))));
    const wrong = batch.findIndex(([, size], j) => heads[j]?.size !== size);
    if (wrong >= 0) {
      const [hash, size] = batch[wrong]!;
      const head = heads[wrong];
      return fail("invalid", head
        ? `manifest: chunk ${hash} is stored with ${head.size} bytes, not the ${size} it names`
        : `manifest: chunk ${hash} is not stored; every chunk must be uploaded before the commit`);
    }
  }
  return { ok: true, content: { manifest, chunks, bytes } };
}

/** The manifest `name` of the volume, parsed and validated. */
export async function readManifest(place: ContentPlace, name: string): Promise<Ok<{ manifest: VolumeManifest }> | Failure> {
  const object = await place.env.VOLUMES.get(volumeObjectKey(place.accountId, place.volumeId, name));
  if (!object) return fail("invalid", `manifest: ${name} is not stored in the volume`);
  let json: unknown;
  try {
    json = JSON.parse(await object.text());
  } catch {
    return fail("invalid", `manifest: ${name} is not JSON`);
  }
  const parsed = volumeManifest.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return fail("invalid", `manifest: ${name} is not a volume manifest (${issue.path.join(".") || "manifest"}: ${issue.message})`);
  }
  return { ok: true, manifest: parsed.data };
}

/** Whether two manifests hold the same content: the same entries, in the same order. */
export const sameContent = (a: VolumeManifest, b: VolumeManifest) => JSON.stringify(a.entries) === JSON.stringify(b.entries);
