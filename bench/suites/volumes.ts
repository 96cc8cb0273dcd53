// Volumes as a host moves them, against the stack's own R2 S3 endpoint (wrangler dev's, the path
// presigned URLs take in production): the agent's volume library (host-agent/volumes/) saves a
// volume of 256 MB (1 GiB in --full) from one host's working copy, saves it again unchanged, saves
// it after one byte changed, then restores it onto a second host with an empty cache. The restore is
// compared with a direct read of the same objects in the same run: presigned GETs of every chunk,
// as many at once as the restore runs, bodies read to the end and dropped. URLs are signed by the
// platform's own code (durable-objects/volume-urls.ts) with the stack's key pair; versions are kept
// here, as the volume's AccountDO would, since no instance is involved.
import { randomBytes } from "node:crypto";
import { mkdtempSync, openSync, closeSync, rmSync, writeSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { signVolumeUrls, type VolumeUrlSettings } from "../../durable-objects/volume-urls.ts";
import { VolumeLibrary, type VolumeSigner } from "../../host-agent/volumes/volume-library.ts";
import { chunkName, manifestChunks, volumeManifest, type VolumeMount } from "../../protocol/volumes.ts";
import { localR2Credentials, localR2Endpoint } from "../../scripts/dev/local-r2.ts";
import type { Section } from "../results-model.ts";
import { MB, megabytesPerSecond } from "../stats.ts";
import type { SuiteContext } from "./suite-context.ts";

const ACCOUNT = "acc-benchvolumesaaaaaa";
const VOLUME = "vol_benchvolumeaaaaa";
/** As many chunk GETs at once as the agent's restore runs (host-agent/volumes/volume-restore.ts). */
const PARALLEL_GETS = 8;
/** The rest of the volume beside its one large file: files of this size. */
const SMALL_FILE = 1 * MB;

export async function volumesSuite(ctx: SuiteContext): Promise<Section> {
  const bytes = ctx.config.volumeBytes;
  const settings: VolumeUrlSettings = {
    R2_S3_ENDPOINT: localR2Endpoint(ctx.stack.baseUrl), R2_BUCKET: "gpu-rental-volumes", ...r2KeyPair(),
  };
  const signer = versionKeeper(settings);
  const root = mkdtempSync(join(tmpdir(), "gpu-bench-volume-"));
  try {
    const hostA = new VolumeLibrary(join(root, "host-a"), 4 * bytes);
    const hostB = new VolumeLibrary(join(root, "host-b"), 4 * bytes);
    const copyA = join(root, "host-a", "copy");
    const empty: VolumeMount = { volume_id: VOLUME, path: "/workspace", read_only: false, version: 0, manifest: null, max_bytes: 2 * bytes };
    await hostA.restore(empty, copyA, signer);
    const bigFile = writeContent(copyA, bytes);

    ctx.log(`volumes: first save of ${bytes / MB} MB`);
    const first = await timed(() => hostA.save(signer.mount(empty), copyA, signer));
    if (first.value.kind !== "saved") throw new Error(`the first save: ${JSON.stringify(first.value)}`);
    ctx.log("volumes: save unchanged, then after a 1-byte change");
    const unchanged = await timed(() => hostA.save(signer.mount(empty), copyA, signer));
    if (unchanged.value.kind !== "unchanged") throw new Error(`the unchanged save: ${JSON.stringify(unchanged.value)}`);
    changeOneByte(bigFile);
    const oneByte = await timed(() => hostA.save(signer.mount(empty), copyA, signer));
    if (oneByte.value.kind !== "saved") throw new Error(`the 1-byte save: ${JSON.stringify(oneByte.value)}`);

    ctx.log("volumes: restore onto a host without the cache, and a direct read of the same objects");
    const latest = signer.mount(empty);
    const restore = await timed(() => hostB.restore(latest, join(root, "host-b", "copy"), signer));
    const direct = await timed(() => readObjects(settings, latest.manifest!));
    return {
      id: "volumes", title: "Volumes: a host's saves and restores against R2's S3 API", baselineKeys: ["objects"],
      notes: [
        `a volume of ${bytes / MB} MB: one file of half of it, the rest in ${SMALL_FILE / MB} MB files; saved and restored by the agent's volume library against the stack's R2 S3 endpoint (wrangler dev's /cdn-cgi/local/r2/s3, presigned URLs signed by durable-objects/volume-urls.ts), each host with its own cache`,
        `restore: onto a second host with an empty cache, the manifest and every chunk fetched, checked against its hash and written into place (${restore.value.fetched_bytes} bytes fetched); (e) objects: the same chunks read with presigned GETs, ${PARALLEL_GETS} at once, bodies dropped`,
        `first save: ${first.value.bytes_sent} bytes sent in ${(first.ms / 1000).toFixed(1)} s (${megabytesPerSecond(first.value.bytes_sent, first.ms).toFixed(0)} MB/s), hashing included; then unchanged: nothing sent, no commit; then one byte changed in the large file: one chunk and the manifest`,
        "one run each: a volume's figures are stable on a quiet machine; the signing here is local, where an agent asks its MachineDO (one round trip per 64 URLs)",
      ],
      figures: [
        { id: "volumes.restore", label: `restore ${bytes / MB} MB, empty cache`, unit: "MB/s", better: "higher", ours: megabytesPerSecond(bytes, restore.ms), baselines: { objects: megabytesPerSecond(direct.value, direct.ms) } },
        { id: "volumes.save_unchanged", label: "save unchanged", unit: "s", better: "lower", ours: unchanged.ms / 1000, baselines: {}, ratios: false },
        { id: "volumes.save_one_byte", label: "save after a 1-byte change: sent", unit: "MB", better: "lower", ours: oneByte.value.bytes_sent / MB, baselines: {}, ratios: false },
        { id: "volumes.save_one_byte_time", label: "save after a 1-byte change", unit: "s", better: "lower", ours: oneByte.ms / 1000, baselines: {}, ratios: false },
      ],
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function r2KeyPair(): Pick<VolumeUrlSettings, "R2_ACCESS_KEY_ID" | "R2_SECRET_ACCESS_KEY"> {
  const { accessKeyId, secretAccessKey } = localR2Credentials(resolve(import.meta.dirname, "../.."));
  return { R2_ACCESS_KEY_ID: accessKeyId, R2_SECRET_ACCESS_KEY: secretAccessKey };
}

/** Signs as the MachineDO does and commits as the AccountDO does: each version only at its base. */
function versionKeeper(settings: VolumeUrlSettings): VolumeSigner & { mount(base: VolumeMount): VolumeMount } {
  let latest = { version: 0, manifest: null as string | null };
  return {
    sign: (volumeId, method, names) => signVolumeUrls(settings, ACCOUNT, volumeId, method, names),
    async commit(_volumeId, baseVersion, manifest) {
      if (baseVersion !== latest.version) return { version: null, error: `the volume is at version ${latest.version}, not ${baseVersion}` };
      latest = { version: baseVersion + 1, manifest };
      return { version: latest.version, error: "" };
    },
    mount: (base) => ({ ...base, ...latest }),
  };
}

/** Half of `bytes` in one file, the rest in SMALL_FILE files, random (nothing for chunks to share); the large file's path. */
function writeContent(dir: string, bytes: number): string {
  const big = join(dir, "weights.bin");
  writeFile(big, bytes / 2);
  mkdirSync(join(dir, "data"));
  for (let i = 0; i < bytes / 2 / SMALL_FILE; i++) writeFile(join(dir, "data", `part-${i}.bin`), SMALL_FILE);
  return big;
}

function writeFile(path: string, size: number): void {
  const fd = openSync(path, "w");
  try {
    for (let written = 0; written < size; written += 4 * MB) writeSync(fd, randomBytes(Math.min(4 * MB, size - written)));
  } finally {
    closeSync(fd);
  }
}

/** One byte in the middle of the large file's third chunk, flipped in place. */
function changeOneByte(path: string): void {
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, randomBytes(1), 0, 1, 2 * 8 * MB + 12345);
  } finally {
    closeSync(fd);
  }
}

/** Every chunk the manifest names, read with presigned GETs PARALLEL_GETS at a time; the bytes read. */
async function readObjects(settings: VolumeUrlSettings, manifest: string): Promise<number> {
  const [manifestUrl] = await signVolumeUrls(settings, ACCOUNT, VOLUME, "GET", [manifest]);
  const content = volumeManifest.parse(await (await fetch(manifestUrl!)).json());
  const urls = await signVolumeUrls(settings, ACCOUNT, VOLUME, "GET", [...manifestChunks(content).keys()].map(chunkName));
  let read = 0;
  const worker = async () => {
    for (let url = urls.pop(); url !== undefined; url = urls.pop()) {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`GET of a chunk: ${response.status}`);
      for await (const part of response.body!) read += part.byteLength;
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_GETS }, worker));
  return read;
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}
