// A volume's content written into the bucket as a host's save would write it (chunks, then a manifest
// under a fresh name), through the test's own R2 binding; and what is stored under a volume's prefix.
import { env } from "cloudflare:workers";
import { randomBase32 } from "../../../core/ids.ts";
import { chunkName, manifestName, volumeObjectKey, volumePrefix, VOLUME_CHUNK_BYTES, type ManifestEntry, type VolumeManifest } from "../../../protocol/volumes.ts";

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** Files by path (relative, sorted as given), each cut into chunks; returns the manifest and each chunk's bytes by hash. */
export async function contentOf(files: Record<string, Uint8Array | string>): Promise<{ manifest: VolumeManifest; chunks: Map<string, Uint8Array> }> {
  const chunks = new Map<string, Uint8Array>();
  const entries: ManifestEntry[] = [];
  for (const path of Object.keys(files).sort()) {
    const raw = files[path]!;
    const bytes = typeof raw === "string" ? new TextEncoder().encode(raw) : raw;
    const hashes: string[] = [];
    for (let offset = 0; offset < bytes.length; offset += VOLUME_CHUNK_BYTES) {
      const chunk = bytes.subarray(offset, offset + VOLUME_CHUNK_BYTES);
      const hash = hex(await crypto.subtle.digest("SHA-256", chunk));
      chunks.set(hash, chunk);
      hashes.push(hash);
    }
    entries.push({ type: "file", path, mode: 0o644, mtime_ms: 0, size: bytes.length, chunks: hashes });
  }
  return { manifest: { format: 1, entries }, chunks };
}

/**
 * Stores `files` as a save of volume `volumeId` would: every chunk (less those in `skip`), then the
 * manifest under a fresh name, which it returns with the chunks' hashes.
 */
export async function storeSave(accountId: string, volumeId: string, files: Record<string, Uint8Array | string>, skip: string[] = []) {
  const { manifest, chunks } = await contentOf(files);
  for (const [hash, bytes] of chunks) {
    if (!skip.includes(hash)) await env.VOLUMES.put(volumeObjectKey(accountId, volumeId, chunkName(hash)), bytes);
  }
  const name = manifestName(randomBase32(20));
  await env.VOLUMES.put(volumeObjectKey(accountId, volumeId, name), JSON.stringify(manifest));
  return { manifest: name, hashes: [...chunks.keys()] };
}

/** The names (relative to the volume) of every object stored under its prefix, sorted. */
export async function storedNames(accountId: string, volumeId: string): Promise<string[]> {
  const prefix = volumePrefix(accountId, volumeId);
  const names: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await env.VOLUMES.list({ prefix, cursor });
    names.push(...page.objects.map((object) => object.key.slice(prefix.length)));
    if (!page.truncated) return names.sort();
    cursor = page.cursor;
  }
}
