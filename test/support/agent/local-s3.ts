// A real S3 endpoint for the agent's volume tests: miniflare in this process with an R2 bucket and
// its local S3 API (`/cdn-cgi/local/r2/s3/<bucket>`, the key pair of wrangler.toml's local_dev, as
// `npm run dev` serves it), and a platform stand-in for the agent's signer: it presigns with
// aws4fetch as durable-objects/volume-urls.ts does, under the account's and volume's prefix, and commits
// versions in memory, each only at its base version and only once its manifest is stored.
import { AwsClient } from "aws4fetch";
import { volumeObjectKey } from "../../../protocol/volumes.ts";
import { localR2Endpoint } from "../../../scripts/dev/local-r2.ts";
import type { VolumeSigner } from "../../../host-agent/volumes/volume-library.ts";
import { BUCKET, startMiniflareR2, type R2Bucket } from "./miniflare-r2.ts";
const ACCOUNT = "acct_volumetests";

export interface LocalS3 {
  /** Objects as the R2 binding sees them (keys with the account's and volume's prefix). */
  bucket: R2Bucket;
  /** The key an object of a volume has in the bucket. */
  key(volumeId: string, name: string): string;
  signer(options?: SignerOptions): TestSigner;
  close(): Promise<void>;
}

export interface SignerOptions {
  /** Throws from `sign` on this call (1-based) and every later one: an agent that dies midway. */
  failFromCall?: number;
  /** URLs of the first signing are signed 20 minutes ago, so storage refuses them as expired. */
  expiredFirst?: boolean;
  /** Each commit is made, then its answer lost: `commit` throws as a dropped connection does. */
  answerLost?: boolean;
}

export interface TestSigner extends VolumeSigner {
  /** Each `sign` call: its method and names. */
  readonly signed: { method: "GET" | "PUT"; names: string[] }[];
  /** Each `commit` call. */
  readonly commits: { volumeId: string; baseVersion: number; manifest: string; bytesSent: number }[];
}

/** The platform's record: each volume's version and manifest. */
export type Versions = Map<string, { version: number; manifest: string | null }>;

export async function startLocalS3(): Promise<LocalS3 & { versions: Versions }> {
  const { miniflare, origin, bucket, credentials } = await startMiniflareR2();
  const client = new AwsClient({ ...credentials, service: "s3", region: "auto" });
  const versions: Versions = new Map();
  const key = (volumeId: string, name: string) => volumeObjectKey(ACCOUNT, volumeId, name);

  const signer = ({ failFromCall = Infinity, expiredFirst = false, answerLost = false }: SignerOptions = {}): TestSigner => {
    const signed: TestSigner["signed"] = [];
    const commits: TestSigner["commits"] = [];
    return {
      signed,
      commits,
      async sign(volumeId, method, names) {
        signed.push({ method, names });
        if (signed.length >= failFromCall) throw new Error("the agent's connection is gone");
        const when = expiredFirst && signed.length === 1 ? Date.now() - 20 * 60_000 : Date.now();
        const datetime = new Date(when).toISOString().replace(/[:-]|\.\d{3}/g, "");
        return Promise.all(names.map(async (name) => {
          const url = new URL(`${localR2Endpoint(origin)}/${BUCKET}/${key(volumeId, name)}`);
          url.searchParams.set("X-Amz-Expires", "600");
          return (await client.sign(url, { method, aws: { signQuery: true, datetime } })).url;
        }));
      },
      async commit(volumeId, baseVersion, manifest, bytesSent) {
        commits.push({ volumeId, baseVersion, manifest, bytesSent });
        const current = versions.get(volumeId) ?? { version: 0, manifest: null };
        // As the AccountDO does: the same save sent again after its commit is answered with its version.
        if (current.manifest === manifest && current.version === baseVersion + 1) return { version: current.version, error: "" };
        if (current.version !== baseVersion) return { version: null, error: `the volume is at version ${current.version}, not ${baseVersion}` };
        if (!(await bucket.head(key(volumeId, manifest)))) return { version: null, error: `no manifest ${manifest}` };
        const next = { version: baseVersion + 1, manifest };
        versions.set(volumeId, next);
        if (answerLost) throw new Error("the agent's connection is gone");
        return { version: next.version, error: "" };
      },
    };
  };

  return { bucket, key, signer, versions, close: () => miniflare.dispose() };
}
