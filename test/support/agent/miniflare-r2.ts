// R2 and its S3 API from miniflare in this process, with the key pair of wrangler.toml's local_dev (as
// `npm run dev` serves it): the real S3 endpoint of the agent's volume tests.
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { resolve } from "node:path";
import { localR2Credentials, type LocalR2 } from "../../../scripts/dev/local-r2.ts";

export const BUCKET = "gpu-rental-volumes";

export type R2Bucket = Awaited<ReturnType<Miniflare["getR2Bucket"]>>;

export interface MiniflareR2 {
  miniflare: Miniflare;
  /** Where miniflare listens, without a trailing slash. */
  origin: string;
  bucket: R2Bucket;
  credentials: LocalR2;
}

export async function startMiniflareR2(): Promise<MiniflareR2> {
  const credentials = localR2Credentials(resolve(import.meta.dirname, "../../.."));
  const miniflare = new Miniflare(convertV4MiniflareOptions({
    compatibilityDate: "2026-01-01",
    modules: true,
    script: "export default { fetch() { return new Response(null, { status: 404 }) } }",
    r2Buckets: { VOLUMES: { id: BUCKET, s3Credentials: credentials } },
  }));
  const origin = (await miniflare.ready).origin.replace(/\/$/, "");
  return { miniflare, origin, bucket: await miniflare.getR2Bucket("VOLUMES"), credentials };
}
