// The platform's side of volumes for tests of the real agent against a FakeMachineDo: R2 and its S3
// API from miniflare in this process (the key pair of wrangler.toml's local_dev, as `npm run dev`
// serves it), URLs presigned by the Worker's own code (core/volume-urls.ts), and commits kept in
// memory as the AccountDO keeps them: only at the volume's current version, only once the manifest
// is stored. Every volume_sign and volume_commit of the agent is answered; every message is kept.
import { createHash, randomBytes } from "node:crypto";
import { signVolumeUrls, VOLUME_URL_SECONDS, type VolumeUrlSettings } from "../../../durable-objects/volume-urls.ts";
import { chunkName, manifestName, volumeObjectKey, VOLUME_CHUNK_BYTES, type ManifestEntry, type VolumeMount } from "../../../protocol/volumes.ts";
import type { AgentMessage } from "../../../protocol/messages.ts";
import { localR2Endpoint } from "../../../scripts/dev/local-r2.ts";
import type { FakeMachineDo } from "./fake-machine-do.ts";
import { BUCKET, startMiniflareR2, type R2Bucket } from "./miniflare-r2.ts";
export const ACCOUNT = "acct_agentvolumes";

export interface VolumePlatform {
  /** The Worker's settings for signing, against this S3 endpoint. */
  env: VolumeUrlSettings;
  bucket: R2Bucket;
  /** Each volume's committed version and manifest. */
  versions: Map<string, { version: number; manifest: string | null }>;
  /** Every volume message the agent sent, in order. */
  messages: Extract<AgentMessage, { type: "volume_sign" | "volume_commit" | "volume_save_failed" }>[];
  /** Answers the agent's volume requests on `machine` from now on. */
  serve(machine: FakeMachineDo): void;
  /** Stores `files` (path → content) as a version of `volumeId`, committed; the mount an instance would get. */
  storeVersion(volumeId: string, files: Record<string, string>, mount: Pick<VolumeMount, "path" | "read_only"> & Partial<VolumeMount>): Promise<VolumeMount>;
  /** The files of the volume's committed version, by path. */
  readVersion(volumeId: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export async function startVolumePlatform(): Promise<VolumePlatform> {
  const { miniflare, origin, bucket, credentials } = await startMiniflareR2();
  const env = { R2_S3_ENDPOINT: localR2Endpoint(origin), R2_BUCKET: BUCKET, R2_ACCESS_KEY_ID: credentials.accessKeyId, R2_SECRET_ACCESS_KEY: credentials.secretAccessKey };
  const versions: VolumePlatform["versions"] = new Map();
  const messages: VolumePlatform["messages"] = [];
  const key = (volumeId: string, name: string) => volumeObjectKey(ACCOUNT, volumeId, name);

  async function commit(volumeId: string, baseVersion: number, manifest: string): Promise<{ version: number | null; error: string }> {
    const current = versions.get(volumeId) ?? { version: 0, manifest: null };
    if (current.version !== baseVersion) return { version: null, error: `the volume is at version ${current.version}, not ${baseVersion}` };
    if (!(await bucket.head(key(volumeId, manifest)))) return { version: null, error: `no manifest ${manifest}` };
    versions.set(volumeId, { version: baseVersion + 1, manifest });
    return { version: baseVersion + 1, error: "" };
  }

  return {
    env, bucket, versions, messages,
    serve(machine) {
      machine.onMessage((message) => {
        if (message.type !== "volume_sign" && message.type !== "volume_commit" && message.type !== "volume_save_failed") return;
        messages.push(message);
        if (message.type === "volume_sign") {
          void signVolumeUrls(env, ACCOUNT, message.volume_id, message.method, message.names).then((urls) =>
            machine.send({ type: "volume_signed", request_id: message.request_id, urls, expires_s: VOLUME_URL_SECONDS, error: "" }));
        } else if (message.type === "volume_commit") {
          void commit(message.volume_id, message.base_version, message.manifest).then((answer) => machine.send({ type: "volume_committed", request_id: message.request_id, ...answer }));
        }
      });
    },
    async storeVersion(volumeId, files, mount) {
      const entries: ManifestEntry[] = [];
      for (const path of Object.keys(files).sort()) {
        const bytes = Buffer.from(files[path]!);
        const chunks: string[] = [];
        for (let offset = 0; offset < bytes.length; offset += VOLUME_CHUNK_BYTES) {
          const chunk = bytes.subarray(offset, offset + VOLUME_CHUNK_BYTES);
          const hash = createHash("sha256").update(chunk).digest("hex");
          await bucket.put(key(volumeId, chunkName(hash)), chunk);
          chunks.push(hash);
        }
        entries.push({ type: "file", path, mode: 0o644, mtime_ms: 1_700_000_000_000, size: bytes.length, chunks });
      }
      const manifest = manifestName(randomBytes(12).toString("hex"));
      await bucket.put(key(volumeId, manifest), JSON.stringify({ format: 1, entries }));
      const version = (versions.get(volumeId)?.version ?? 0) + 1;
      versions.set(volumeId, { version, manifest });
      return { volume_id: volumeId, version, manifest, max_bytes: 10 ** 9, ...mount };
    },
    async readVersion(volumeId) {
      const manifest = versions.get(volumeId)?.manifest;
      if (!manifest) return {};
      const { entries } = JSON.parse(await (await bucket.get(key(volumeId, manifest)))!.text()) as { entries: ManifestEntry[] };
      const files: Record<string, string> = {};
      for (const entry of entries) {
        if (entry.type !== "file") continue;
        const parts = await Promise.all(entry.chunks.map(async (hash) => Buffer.from(await (await bucket.get(key(volumeId, chunkName(hash))))!.arrayBuffer())));
        files[entry.path] = Buffer.concat(parts).toString("utf8");
      }
      return files;
    },
    close: () => miniflare.dispose(),
  };
}
