// Presigned URLs on R2's S3 API for one volume's objects: how hosts and the CLI move a volume's bytes
// without them crossing a Durable Object. A URL names one object, one method, and lives
// VOLUME_URL_SECONDS; the key is composed here from the account and the volume, so a caller names
// only an object within its volume (protocol/volumes.ts). Signed with the Worker's R2 key pair
// (R2_ACCESS_KEY_ID, R2_SECRET_ACCESS_KEY), which never leaves the Worker.
import { AwsClient } from "aws4fetch";
import { VOLUME_OBJECT_NAME, volumeObjectKey } from "../protocol/volumes.ts";
import { clock } from "../core/clock.ts";

/** How long a presigned URL is valid: long enough for one 8 MiB chunk on a slow link, short enough to be worthless soon after. */
export const VOLUME_URL_SECONDS = 600;

export type VolumeUrlMethod = "GET" | "PUT" | "HEAD";

/** The settings signing reads (the Worker's env has them): the endpoint, the bucket and the key pair. */
export interface VolumeUrlSettings {
  R2_S3_ENDPOINT: string;
  R2_BUCKET: string;
  R2_ACCESS_KEY_ID: string;
  R2_SECRET_ACCESS_KEY: string;
}

/** Whether this Worker can sign: an endpoint and a key pair configured. */
export const canSignVolumeUrls = (env: VolumeUrlSettings) => Boolean(env.R2_S3_ENDPOINT && env.R2_ACCESS_KEY_ID && env.R2_SECRET_ACCESS_KEY);

/** One URL per name, in order; each name must be a volume object's name (checked: a caller's input). */
export async function signVolumeUrls(env: VolumeUrlSettings, accountId: string, volumeId: string, method: VolumeUrlMethod, names: string[], seconds = VOLUME_URL_SECONDS): Promise<string[]> {
  if (!canSignVolumeUrls(env)) throw new Error("R2_S3_ENDPOINT, R2_ACCESS_KEY_ID and R2_SECRET_ACCESS_KEY must be set to sign volume URLs");
  const client = new AwsClient({ accessKeyId: env.R2_ACCESS_KEY_ID, secretAccessKey: env.R2_SECRET_ACCESS_KEY, service: "s3", region: "auto" });
  // One signing time for the batch, from the clock tests can move: an expiry test needs no waiting.
  const datetime = new Date(clock.now()).toISOString().replace(/[:-]|\.\d{3}/g, "");
  const base = env.R2_S3_ENDPOINT.replace(/\/+$/, "");
  return Promise.all(names.map(async (name) => {
    if (!VOLUME_OBJECT_NAME.test(name)) throw new RangeError(`not a volume object's name: ${name}`);
    const url = new URL(`${base}/${env.R2_BUCKET}/${volumeObjectKey(accountId, volumeId, name)}`);
    url.searchParams.set("X-Amz-Expires", String(seconds));
    const signed = await client.sign(url, { method, aws: { signQuery: true, datetime } });
    return signed.url;
  }));
}
