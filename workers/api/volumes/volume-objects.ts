// One volume's objects in the bucket, as the files route and the snapshot copy reach them through the
// binding: the key is composed here from the account and the volume (protocol/volumes.ts), so the
// callers name only objects within the volume.
import type { Env } from "../../../core/env.ts";
import { randomBase32 } from "../../../core/ids.ts";
import { manifestName, volumeManifest, volumeObjectKey, type VolumeManifest } from "../../../protocol/volumes.ts";

export interface VolumePlace {
  bucket: Env["VOLUMES"];
  accountId: string;
  volumeId: string;
}

export const volumePlace = (env: Env, accountId: string, volumeId: string): VolumePlace => ({ bucket: env.VOLUMES, accountId, volumeId });

export const objectKey = (place: VolumePlace, name: string) => volumeObjectKey(place.accountId, place.volumeId, name);

/**
 * The bucket calls one request may make: each is a subrequest, of which Workers (paid) allow 10,000 a
 * request; the rest is left for the request's other calls (its AccountDO, its manifests, a cleanup).
 */
export const MAX_BUCKET_CALLS = 9_000;

/** A version with nothing in it: version 0's content. */
export const EMPTY_MANIFEST: VolumeManifest = { format: 1, entries: [] };

/**
 * The manifest `name` (null: version 0, empty), or null when it is no longer stored (a version
 * committed meanwhile freed it). One the platform stored and cannot read is a bug: it throws.
 */
export async function readManifest(place: VolumePlace, name: string | null): Promise<VolumeManifest | null> {
  if (name === null) return EMPTY_MANIFEST;
  const object = await place.bucket.get(objectKey(place, name));
  if (!object) return null;
  return volumeManifest.parse(await object.json());
}

/** Stores `manifest` under a fresh name, which it returns. */
export async function writeManifest(place: VolumePlace, manifest: VolumeManifest): Promise<string> {
  const name = manifestName(randomBase32(26));
  await place.bucket.put(objectKey(place, name), JSON.stringify(manifest), { httpMetadata: { contentType: "application/json" } });
  return name;
}
