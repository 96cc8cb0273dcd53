// The agent's volumes against a real S3 endpoint (miniflare's R2 with its local S3 API, as `npm run
// dev` serves it): restores and saves between "hosts" (libraries with their own state folders and
// caches), what each sends, saves that die or are refused, and manifests that try to leave the copy.
import { createHash, randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { chmod, lstat, mkdir, open, readdir, readFile, readlink, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunkName, manifestName, VOLUME_CHUNK_BYTES, type VolumeManifest, type VolumeMount } from "../../protocol/volumes.ts";
import { startLocalS3, type LocalS3, type Versions } from "../../test/support/agent/local-s3.ts";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { VolumeLibrary } from "./volume-library.ts";
import { readBase, readStats, writeStats } from "./working-copy-state.ts";

const MiB = 2 ** 20;
const temp = useTempDir("volume-library-");
let s3: LocalS3 & { versions: Versions };
let volumes = 0;

beforeAll(async () => {
  s3 = await startLocalS3();
});
afterAll(() => s3?.close());

/** A fresh volume id and a host with its own state folder (and so its own cache). */
const newVolume = () => `vol_${"abcdefghijklmnopqrstuvwxyz"[volumes++]!.repeat(16)}`;
const host = (name: string, cacheBytes = 2 ** 30) => {
  const stateDir = join(temp.path, name);
  return { library: new VolumeLibrary(stateDir, cacheBytes), copy: (volumeId: string) => join(stateDir, "copies", volumeId) };
};
let hosts = 0;
const newHost = (cacheBytes?: number) => host(`host-${hosts++}`, cacheBytes);

/** The spec's mount of the volume at its latest version, as the platform fills it at launch. */
function mountOf(volumeId: string, maxBytes = 10 ** 9): VolumeMount {
  const latest = s3.versions.get(volumeId) ?? { version: 0, manifest: null };
  return { volume_id: volumeId, path: "/workspace", read_only: false, version: latest.version, manifest: latest.manifest, max_bytes: maxBytes };
}

/** Every entry of a tree: type, mode, mtime, and a file's SHA-256 or a link's target. */
async function digest(dir: string): Promise<string[]> {
  const lines: string[] = [];
  for (const path of (await readdir(dir, { recursive: true })).sort()) {
    const info = await lstat(join(dir, path));
    const mtime = Math.round(info.mtimeMs);
    if (info.isSymbolicLink()) lines.push(`link ${path} -> ${await readlink(join(dir, path))} ${mtime}`);
    else if (info.isDirectory()) lines.push(`dir ${path} ${(info.mode & 0o7777).toString(8)} ${mtime}`);
    else lines.push(`file ${path} ${(info.mode & 0o7777).toString(8)} ${mtime} ${createHash("sha256").update(await readFile(join(dir, path))).digest("hex")}`);
  }
  return lines;
}

async function chunkObjects(volumeId: string): Promise<string[]> {
  const listed = await s3.bucket.list({ prefix: s3.key(volumeId, "chunks/") });
  return listed.objects.map((object) => object.key);
}

describe("volumes on a host, against a real S3 endpoint", () => {
  it("a version saved on one host restores byte for byte on another with an empty cache; saving either copy unchanged sends nothing and commits nothing", async () => {
    const volumeId = newVolume();
    const a = newHost();
    const b = newHost();
    const signer = s3.signer();
    const copyA = a.copy(volumeId);
    expect(await a.library.restore(mountOf(volumeId), copyA, signer)).toEqual({ reused: false, fetched_bytes: 0, cached_bytes: 0 });
    expect(await readdir(copyA)).toEqual([]);

    const blob = randomBytes(20 * MiB);
    await mkdir(join(copyA, "data/deep/er"), { recursive: true, mode: 0o750 });
    await writeFile(join(copyA, "data/blob.bin"), blob);
    await writeFile(join(copyA, "data/deep/er/copy.bin"), blob);
    await writeFile(join(copyA, "notes.txt"), "hello\n", { mode: 0o640 });
    await writeFile(join(copyA, "run.sh"), "#!/bin/sh\n", { mode: 0o755 });
    await writeFile(join(copyA, "empty"), "");
    await symlink("data/blob.bin", join(copyA, "latest"));
    await symlink("/usr/bin/python3", join(copyA, "python"));
    await utimes(join(copyA, "notes.txt"), new Date("2024-05-01T10:00:00.123Z"), new Date("2024-05-01T10:00:00.123Z"));

    const saved = await a.library.save(mountOf(volumeId), copyA, signer);
    // The two copies of the blob are three chunks, sent once.
    expect(saved).toEqual({ kind: "saved", version: 1, bytes_sent: blob.length + 6 + 10, skipped: [] });
    expect(await chunkObjects(volumeId)).toHaveLength(5);

    const copyB = b.copy(volumeId);
    const restored = await b.library.restore(mountOf(volumeId), copyB, s3.signer());
    expect(restored).toEqual({ reused: false, fetched_bytes: blob.length + 6 + 10, cached_bytes: 0 });
    expect(await digest(copyB)).toEqual(await digest(copyA));

    for (const [library, copy] of [[a.library, copyA], [b.library, copyB]] as const) {
      const quiet = s3.signer();
      expect(await library.save(mountOf(volumeId), copy, quiet)).toEqual({ kind: "unchanged", skipped: [] });
      expect(quiet.signed).toEqual([]);
      expect(quiet.commits).toEqual([]);
    }
    const again = s3.signer();
    expect(await b.library.restore(mountOf(volumeId), copyB, again)).toEqual({ reused: true, fetched_bytes: 0, cached_bytes: 0 });
    expect(again.signed).toEqual([]);

    // A host whose cache holds the chunks (it saved them) fetches none of them.
    await a.library.discard(copyA);
    const fromCache = await a.library.restore(mountOf(volumeId), copyA, s3.signer());
    expect(fromCache).toEqual({ reused: false, fetched_bytes: 0, cached_bytes: blob.length + 6 + 10 });
    expect(await digest(copyA)).toEqual(await digest(copyB));
  });

  it("one byte changed in a 64 MiB file uploads exactly one chunk, and the manifest", async () => {
    const volumeId = newVolume();
    const a = newHost();
    const copy = a.copy(volumeId);
    await a.library.restore(mountOf(volumeId), copy, s3.signer());
    await writeFile(join(copy, "weights.bin"), randomBytes(64 * MiB));
    expect(await a.library.save(mountOf(volumeId), copy, s3.signer())).toMatchObject({ kind: "saved", version: 1, bytes_sent: 64 * MiB });

    const file = await open(join(copy, "weights.bin"), "r+");
    await file.write(Buffer.from([0x5a]), 0, 1, 3 * VOLUME_CHUNK_BYTES + 12_345);
    await file.close();
    const signer = s3.signer();
    expect(await a.library.save(mountOf(volumeId), copy, signer)).toEqual({ kind: "saved", version: 2, bytes_sent: VOLUME_CHUNK_BYTES, skipped: [] });
    const puts = signer.signed.flatMap(({ names }) => names);
    expect(puts).toHaveLength(2);
    expect(puts[0]).toMatch(/^chunks\/[0-9a-f]{64}$/);
    expect(puts[1]).toMatch(/^manifests\//);
    expect(signer.commits).toEqual([{ volumeId, baseVersion: 1, manifest: puts[1], bytesSent: VOLUME_CHUNK_BYTES }]);
    expect(await chunkObjects(volumeId)).toHaveLength(9);
  });

  it("a save that dies midway leaves the copy's base and the previous version whole, and the next save commits", async () => {
    const volumeId = newVolume();
    const a = newHost();
    const copy = a.copy(volumeId);
    await a.library.restore(mountOf(volumeId), copy, s3.signer());
    await writeFile(join(copy, "first.bin"), randomBytes(40 * MiB));
    await a.library.save(mountOf(volumeId), copy, s3.signer());
    const version1 = await digest(copy);

    await writeFile(join(copy, "second.bin"), randomBytes(40 * MiB));
    const dying = s3.signer({ failFromCall: 3 });
    const failed = await a.library.save(mountOf(volumeId), copy, dying);
    expect(failed).toEqual({ kind: "failed", reason: "the agent's connection is gone", bytes_sent: 2 * VOLUME_CHUNK_BYTES });
    expect(dying.commits).toEqual([]);
    expect((await readBase(copy))?.version).toBe(1);
    expect(s3.versions.get(volumeId)?.version).toBe(1);
    const elsewhere = newHost();
    await elsewhere.library.restore(mountOf(volumeId), elsewhere.copy(volumeId), s3.signer());
    expect(await digest(elsewhere.copy(volumeId))).toEqual(version1);

    expect(await a.library.save(mountOf(volumeId), copy, s3.signer())).toMatchObject({ kind: "saved", version: 2 });
    const later = newHost();
    await later.library.restore(mountOf(volumeId), later.copy(volumeId), s3.signer());
    expect(await digest(later.copy(volumeId))).toEqual(await digest(copy));
  });

  it("a commit made but not answered (the connection dropped) is sent again by the next save, which then saves from the version it made", async () => {
    const volumeId = newVolume();
    const a = newHost();
    const copy = a.copy(volumeId);
    await a.library.restore(mountOf(volumeId), copy, s3.signer());
    await writeFile(join(copy, "first.txt"), "first");
    expect(await a.library.save(mountOf(volumeId), copy, s3.signer({ answerLost: true }))).toMatchObject({ kind: "failed", reason: "the agent's connection is gone" });
    expect(s3.versions.get(volumeId)?.version).toBe(1);
    expect((await readBase(copy))?.version).toBe(0);

    await writeFile(join(copy, "second.txt"), "second");
    const signer = s3.signer();
    expect(await a.library.save(mountOf(volumeId), copy, signer)).toMatchObject({ kind: "saved", version: 2, bytes_sent: 6 });
    expect(signer.commits.map((commit) => commit.baseVersion)).toEqual([0, 1]);
    expect(await a.library.save(mountOf(volumeId), copy, s3.signer())).toMatchObject({ kind: "unchanged" });
  });

  it("content over the volume's size is refused before anything is uploaded", async () => {
    const volumeId = newVolume();
    const a = newHost();
    const copy = a.copy(volumeId);
    await a.library.restore(mountOf(volumeId, 10 * MiB), copy, s3.signer());
    await writeFile(join(copy, "big.bin"), randomBytes(11 * MiB));
    const signer = s3.signer();
    expect(await a.library.save(mountOf(volumeId, 10 * MiB), copy, signer)).toEqual({
      kind: "failed", bytes_sent: 0,
      reason: "the volume's content is 11,534,336 bytes, over its size of 10,485,760 bytes: nothing was saved, the last version stays",
    });
    expect(signer.signed).toEqual([]);
    expect(await chunkObjects(volumeId)).toEqual([]);
    expect((await readBase(copy))?.version).toBe(0);
  });

  it("a commit the platform refuses (the volume moved on) leaves the copy's base", async () => {
    const volumeId = newVolume();
    const a = newHost();
    const copy = a.copy(volumeId);
    await a.library.restore(mountOf(volumeId), copy, s3.signer());
    await writeFile(join(copy, "x"), "x");
    s3.versions.set(volumeId, { version: 3, manifest: null });
    expect(await a.library.save({ ...mountOf(volumeId), version: 0 }, copy, s3.signer())).toEqual({
      kind: "failed", reason: "the platform refused version 1: the volume is at version 3, not 0", bytes_sent: 1,
    });
    expect((await readBase(copy))?.version).toBe(0);
  });

  it("a link in the copy is saved as a link and never followed out of it; what is neither file, directory nor link is skipped", async () => {
    const volumeId = newVolume();
    const a = newHost();
    const copy = a.copy(volumeId);
    const outside = join(temp.path, "outside");
    await mkdir(outside, { recursive: true });
    const secret = "the host's own secret\n";
    await writeFile(join(outside, "secret.txt"), secret);
    await a.library.restore(mountOf(volumeId), copy, s3.signer());
    await symlink(outside, join(copy, "escape"));
    await symlink(join(outside, "secret.txt"), join(copy, "escape-file"));
    execFileSync("mkfifo", [join(copy, "pipe")]);
    const saved = await a.library.save(mountOf(volumeId), copy, s3.signer());
    expect(saved).toEqual({ kind: "saved", version: 1, bytes_sent: 0, skipped: ["pipe"] });
    const manifest = await (await s3.bucket.get(s3.key(volumeId, s3.versions.get(volumeId)!.manifest!)))!.json();
    expect(manifest).toEqual({
      format: 1,
      entries: [
        { type: "symlink", path: "escape", target: outside, mtime_ms: expect.any(Number) },
        { type: "symlink", path: "escape-file", target: join(outside, "secret.txt"), mtime_ms: expect.any(Number) },
      ],
    });
    expect(await s3.bucket.head(s3.key(volumeId, chunkName(createHash("sha256").update(secret).digest("hex"))))).toBeNull();
  });

  it("an expired URL is asked for again", async () => {
    const volumeId = newVolume();
    const a = newHost();
    await a.library.restore(mountOf(volumeId), a.copy(volumeId), s3.signer());
    await writeFile(join(a.copy(volumeId), "f"), "content");
    await a.library.save(mountOf(volumeId), a.copy(volumeId), s3.signer());
    const b = newHost();
    const signer = s3.signer({ expiredFirst: true });
    await b.library.restore(mountOf(volumeId), b.copy(volumeId), signer);
    expect(await readFile(join(b.copy(volumeId), "f"), "utf8")).toBe("content");
    const manifest = s3.versions.get(volumeId)!.manifest!;
    expect(signer.signed.slice(0, 2)).toEqual([{ method: "GET", names: [manifest] }, { method: "GET", names: [manifest] }]);
  });

  it("a chunk whose bytes in storage do not match its name is refused", async () => {
    const volumeId = newVolume();
    const a = newHost();
    await a.library.restore(mountOf(volumeId), a.copy(volumeId), s3.signer());
    await writeFile(join(a.copy(volumeId), "f"), "the real content");
    await a.library.save(mountOf(volumeId), a.copy(volumeId), s3.signer());
    const [chunk] = await chunkObjects(volumeId);
    await s3.bucket.put(chunk!, "the fake content");
    const b = newHost();
    await expect(b.library.restore(mountOf(volumeId), b.copy(volumeId), s3.signer())).rejects.toThrow(/does not match its name .*damaged/);
    await expect(lstat(b.copy(volumeId))).rejects.toThrow(/ENOENT/);
  });

  it("a file whose stat matches what was cached is not read again; one whose ctime moved is", async () => {
    const volumeId = newVolume();
    const a = newHost();
    const copy = a.copy(volumeId);
    await a.library.restore(mountOf(volumeId), copy, s3.signer());
    await writeFile(join(copy, "f"), "first");
    await writeFile(join(copy, "g"), "second");
    await a.library.save(mountOf(volumeId), copy, s3.signer());
    // The cache says f holds g's chunk: a save that read f would say otherwise.
    const stats = await readStats(copy);
    stats.set("f", { ...stats.get("f")!, chunks: stats.get("g")!.chunks });
    await writeStats(copy, stats);
    const fromCache = await a.library.save(mountOf(volumeId), copy, s3.signer());
    expect(fromCache).toMatchObject({ kind: "saved", version: 2, bytes_sent: 0 });
    const manifest = async () => (await (await s3.bucket.get(s3.key(volumeId, s3.versions.get(volumeId)!.manifest!)))!.json()) as VolumeManifest;
    const chunksOf = async (path: string) => (await manifest()).entries.find((entry) => entry.path === path)!;
    expect(await chunksOf("f")).toMatchObject({ chunks: (await chunksOf("g") as { chunks: string[] }).chunks });
    await chmod(join(copy, "f"), 0o600);
    await a.library.save(mountOf(volumeId), copy, s3.signer());
    expect(await chunksOf("f")).toMatchObject({ mode: 0o600, chunks: [createHash("sha256").update("first").digest("hex")] });
  });

  it("a restore asks URLs in batches of at most 64, just before it uses them", async () => {
    const volumeId = newVolume();
    const a = newHost();
    await a.library.restore(mountOf(volumeId), a.copy(volumeId), s3.signer());
    for (let i = 0; i < 100; i++) await writeFile(join(a.copy(volumeId), `file-${i}`), `content ${i}`);
    const saving = s3.signer();
    expect(await a.library.save(mountOf(volumeId), a.copy(volumeId), saving)).toMatchObject({ kind: "saved" });
    expect(saving.signed.map(({ names }) => names.length)).toEqual(Array(101).fill(1));
    const b = newHost();
    const signer = s3.signer();
    await b.library.restore(mountOf(volumeId), b.copy(volumeId), signer);
    expect(signer.signed.map(({ names }) => names.length)).toEqual([1, 64, 36]);
    expect(await digest(b.copy(volumeId))).toEqual(await digest(a.copy(volumeId)));
  });

  it("a copy of an older version is replaced whole by the newer one, owned by the given user, without setuid", async () => {
    const volumeId = newVolume();
    const a = newHost();
    const b = newHost();
    await a.library.restore(mountOf(volumeId), a.copy(volumeId), s3.signer());
    await writeFile(join(a.copy(volumeId), "tool"), "#!/bin/sh\n", { mode: 0o755 });
    await chmod(join(a.copy(volumeId), "tool"), 0o4755);
    await a.library.save(mountOf(volumeId), a.copy(volumeId), s3.signer());
    const version1 = mountOf(volumeId);
    await b.library.restore(version1, b.copy(volumeId), s3.signer());
    await writeFile(join(b.copy(volumeId), "unsaved"), "lost: the copy is behind");
    await writeFile(join(a.copy(volumeId), "new"), "from version 2");
    await a.library.save(mountOf(volumeId), a.copy(volumeId), s3.signer());

    const owner = { uid: 4321, gid: 4322 };
    expect(await b.library.restore(mountOf(volumeId), b.copy(volumeId), s3.signer(), { owner })).toMatchObject({ reused: false });
    expect((await readdir(b.copy(volumeId))).sort()).toEqual(["new", "tool"]);
    for (const path of ["", "new", "tool"]) expect(await lstat(join(b.copy(volumeId), path))).toMatchObject(owner);
    expect((await lstat(join(b.copy(volumeId), "tool"))).mode & 0o7777).toBe(0o755);
    expect(await readdir(join(b.copy(volumeId), ".."))).toEqual([`${volumeId}`, `${volumeId}.volume-state`]);
  });

  describe("a manifest that would place an entry outside the copy is refused at restore", () => {
    const hash = "0".repeat(64);
    it.each([
      ["a path with ..", [{ type: "file", path: "../x", mode: 0o644, mtime_ms: 0, size: 1, chunks: [hash] }], /path: a relative path without/],
      ["a file through a link", [
        { type: "symlink", path: "link", target: "OUTSIDE", mtime_ms: 0 },
        { type: "file", path: "link/planted", mode: 0o644, mtime_ms: 0, size: 1, chunks: [hash] },
      ], /link\/planted is not inside a directory of the volume \(link is symlink\)/],
      ["a file under a file", [
        { type: "file", path: "a", mode: 0o644, mtime_ms: 0, size: 0, chunks: [] },
        { type: "file", path: "a/b", mode: 0o644, mtime_ms: 0, size: 1, chunks: [hash] },
      ], /a\/b is not inside a directory of the volume \(a is file\)/],
      ["a file whose directory is not listed", [{ type: "file", path: "d/x", mode: 0o644, mtime_ms: 0, size: 0, chunks: [] }], /\(d is absent\)/],
      ["a path twice", [
        { type: "dir", path: "d", mode: 0o755, mtime_ms: 0 },
        { type: "symlink", path: "d", target: "OUTSIDE", mtime_ms: 0 },
      ], /d appears twice/],
    ])("%s", async (_, entries, refusal) => {
      const volumeId = newVolume();
      const outside = join(temp.path, `outside-${volumeId}`);
      await mkdir(outside);
      const name = manifestName(randomBytes(24).toString("base64url"));
      await s3.bucket.put(s3.key(volumeId, name), JSON.stringify({ format: 1, entries }).replaceAll("OUTSIDE", outside));
      s3.versions.set(volumeId, { version: 1, manifest: name });
      const a = newHost();
      await expect(a.library.restore(mountOf(volumeId), a.copy(volumeId), s3.signer())).rejects.toThrow(refusal);
      expect(await readdir(outside)).toEqual([]);
      expect(await readdir(join(a.copy(volumeId), "..")).catch(() => [])).toEqual([]);
    });
  });

  it("a restore through a cache smaller than the volume keeps the cache within its bound", async () => {
    const volumeId = newVolume();
    const a = newHost();
    await a.library.restore(mountOf(volumeId), a.copy(volumeId), s3.signer());
    await writeFile(join(a.copy(volumeId), "f.bin"), randomBytes(40 * MiB));
    await a.library.save(mountOf(volumeId), a.copy(volumeId), s3.signer());
    const small = newHost(2 * VOLUME_CHUNK_BYTES);
    await small.library.restore(mountOf(volumeId), small.copy(volumeId), s3.signer());
    expect(await digest(small.copy(volumeId))).toEqual(await digest(a.copy(volumeId)));
    expect(small.library.cache.bytes).toBe(2 * VOLUME_CHUNK_BYTES);
  });
});
