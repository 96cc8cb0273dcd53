// A snapshot's content copied into a new volume in workerd, against miniflare's R2: every chunk and the
// manifest under the new prefix, which the AccountDO then makes a volume of, its files byte-identical;
// an empty snapshot copies nothing; content over the new size and a snapshot whose objects are gone
// are refused, leaving nothing under the new prefix.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../core/errors.ts";
import { newVolumeId } from "../../../core/ids.ts";
import { VOLUME_CHUNK_BYTES, volumeObjectKey, type VolumeManifest } from "../../../protocol/volumes.ts";
import { tarStream } from "../../../standards/tar-write.ts";
import { call, callJson, newAccount, keyCredential } from "../../../test/support/workerd/api-client.ts";
import { storedNames } from "../../../test/support/workerd/volume-content.ts";
import { copySnapshot } from "./copy-snapshot.ts";
import { randomBytes } from "../../../test/support/workerd/random-bytes.ts";

const MTIME = Date.UTC(2026, 0, 2) / 1000;

/** An account with a volume holding `files` and a snapshot of it; the snapshot's source as the AccountDO gives it. */
async function snapshotOf(files: Record<string, Uint8Array>) {
  const { id: accountId, key } = await newAccount();
  const { body: volume } = await callJson<{ id: string }>("POST", "/v1/volumes", { key, body: { name: "source", size_gb: 2 } });
  const entries = Object.entries(files).map(([name, bytes]) => ({ name, type: "file" as const, mode: 0o644, size: bytes.byteLength, mtime: MTIME, body: [bytes] }));
  if (entries.length > 0) {
    const archive = new Uint8Array(await new Response(tarStream(entries)).arrayBuffer());
    expect((await call("PUT", `/v1/volumes/${volume.id}/files?path=/`, { key, rawBody: archive })).status).toBe(204);
  }
  const snapshot = await callJson<{ id: string }>("POST", `/v1/volumes/${volume.id}/snapshots`, { key, body: {} });
  expect(snapshot.status, JSON.stringify(snapshot.body)).toBe(201);
  const account = env.ACCOUNTS.getByName(accountId);
  const answer = await account.snapshotSource(keyCredential(key), snapshot.body.id);
  if (!answer.ok) throw new Error(answer.message);
  return { accountId, key, account, volumeId: volume.id, source: answer.source };
}

async function sha256(bytes: Uint8Array): Promise<string> {
  return [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("copySnapshot", () => {
  it("copies the manifest and every chunk under the new volume, which the AccountDO makes a volume of, byte-identical", async () => {
    const big = randomBytes(9 * 1024 * 1024 + 1);
    const { accountId, key, account, volumeId, source } = await snapshotOf({ "big.bin": big, "small.txt": new TextEncoder().encode("hi") });
    const id = newVolumeId();
    const manifest = await copySnapshot(env, source, { volumeId: id, maxBytes: 2e9 });
    expect(manifest).toBe(source.manifest);
    expect(await storedNames(accountId, id)).toEqual(await storedNames(accountId, volumeId));
    const created = await account.createVolume(keyCredential(key), { name: "copy", size_gb: 2, id, from: { manifest: manifest!, version: 1 } });
    expect(created).toMatchObject({ ok: true, volume: { id, version: 1, used_bytes: big.byteLength + 2 } });
    const response = await call("GET", `/v1/volumes/copy/files?path=/big.bin`, { key });
    expect(response.status).toBe(200);
    const archive = new Uint8Array(await response.arrayBuffer());
    expect(await sha256(archive.subarray(512, 512 + big.byteLength))).toBe(await sha256(big));
  });

  it("copies nothing for an empty snapshot", async () => {
    const { accountId, source } = await snapshotOf({});
    const id = newVolumeId();
    expect(await copySnapshot(env, source, { volumeId: id, maxBytes: 1e9 })).toBeNull();
    expect(await storedNames(accountId, id)).toEqual([]);
  });

  it("refuses content over the new volume's size naming size_gb, copying nothing", async () => {
    const { accountId, source } = await snapshotOf({ "a.bin": randomBytes(2000) });
    const id = newVolumeId();
    const error = await refusal(copySnapshot(env, source, { volumeId: id, maxBytes: 1000 }));
    expect([error.code, error.message]).toEqual(["invalid", "size_gb: the snapshot holds 2000 bytes, over the new volume's size_gb (0.000001 GB); leave size_gb out or give at least 1"]);
    expect(await storedNames(accountId, id)).toEqual([]);
  });

  it("refuses a snapshot of more chunks than one request copies, naming from_snapshot, copying nothing", async () => {
    const { id: accountId } = await newAccount();
    const sourceId = newVolumeId();
    const chunks = Array.from({ length: 4490 }, (_, i) => i.toString(16).padStart(64, "0"));
    const manifest: VolumeManifest = { format: 1, entries: [{ type: "file", path: "big.bin", mode: 0o644, mtime_ms: 0, size: chunks.length * VOLUME_CHUNK_BYTES, chunks }] };
    await env.VOLUMES.put(volumeObjectKey(accountId, sourceId, "manifests/aaaaaaaaaaaaaaaa.json"), JSON.stringify(manifest));
    const id = newVolumeId();
    const error = await refusal(copySnapshot(env, { account_id: accountId, volume_id: sourceId, manifest: "manifests/aaaaaaaaaaaaaaaa.json", version: 1, size_gb: 100 }, { volumeId: id, maxBytes: 1e12 }));
    expect([error.code, error.message]).toEqual(["invalid", "from_snapshot: the snapshot holds 4490 chunks, more than one request copies (4489, about 35 GiB)"]);
    expect(await storedNames(accountId, id)).toEqual([]);
  });

  it("deletes what it copied when an object of the snapshot is gone", async () => {
    const files = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`f${i}.bin`, randomBytes(1000 + i)]));
    const { accountId, volumeId, source } = await snapshotOf(files);
    const chunks = (await storedNames(accountId, volumeId)).filter((name) => name.startsWith("chunks/"));
    expect(chunks).toHaveLength(9);
    await env.VOLUMES.delete(volumeObjectKey(accountId, volumeId, chunks[7]!));
    const id = newVolumeId();
    const error = await refusal(copySnapshot(env, source, { volumeId: id, maxBytes: 1e9 }));
    expect([error.code, error.message]).toEqual(["not_found", "from_snapshot: the snapshot's content is no longer stored (the snapshot was deleted meanwhile)"]);
    expect(await storedNames(accountId, id)).toEqual([]);
  });
});
