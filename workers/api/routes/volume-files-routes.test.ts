// The volume files route in workerd, against miniflare's R2: a PUT then GET round trip byte-identical
// (a file over 8 MiB, an empty file, an empty directory, links, long names), the same content put
// twice storing no new chunk, one byte changed in a 20 MiB file storing exactly one, a subpath and a
// single file, and every refusal leaving the version as it was.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { TAR_BLOCK_BYTES, tarEntryHead } from "../../../standards/tar.ts";
import { readTar } from "../../../standards/tar-read.ts";
import { tarStream, type TarWriteEntry } from "../../../standards/tar-write.ts";
import { call, callJson, newAccount, keyCredential } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { launchOn } from "../../../test/support/workerd/instances.ts";
import { storedNames } from "../../../test/support/workerd/volume-content.ts";
import { volumePrefix } from "../../../protocol/volumes.ts";
import { extractArchive } from "../volumes/files-extract.ts";
import { archiveOf } from "../volumes/files-archive.ts";
import { readManifest, volumePlace } from "../volumes/volume-objects.ts";
import { hex, randomBytes } from "../../../test/support/workerd/random-bytes.ts";

interface Volume { id: string; version: number; used_bytes: number; stored_bytes: number }
interface Listed { name: string; type: string; mode: number; size: number; mtime: number; linkName?: string; content?: string }

const MTIME = Date.UTC(2026, 0, 2, 3, 4, 5) / 1000;
const MiB = 1024 * 1024;
const LONG = `${"répertoire-".repeat(12)}/${"poids-".repeat(30)}.bin`;

let agent: FakeAgent;
beforeAll(async () => {
  agent = await FakeAgent.online("volume-files-host", ["rtx4090", "rtx4090"]);
});


const file = (name: string, content: Uint8Array, mode = 0o644): TarWriteEntry => ({ name, type: "file", mode, size: content.byteLength, mtime: MTIME, body: [content] });
const dir = (name: string, mode = 0o755): TarWriteEntry => ({ name, type: "directory", mode, size: 0, mtime: MTIME });

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const tarOf = async (entries: TarWriteEntry[]) => bytesOf(tarStream(entries));

const filesPath = (volume: string, path: string) => `/v1/volumes/${volume}/files?path=${encodeURIComponent(path)}`;

const put = (key: string, volume: string, path: string, body: BodyInit | null) =>
  callJson("PUT", filesPath(volume, path), { key, rawBody: body ?? undefined, headers: { "content-type": "application/x-tar" } });

/** The archive GET answers, each entry with its content's SHA-256. */
async function listed(key: string, volume: string, path: string): Promise<Listed[]> {
  const response = await call("GET", filesPath(volume, path), { key });
  expect(response.status, response.status === 200 ? "" : await response.clone().text()).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/x-tar");
  const bytes = await bytesOf(response.body!);
  expect(Number(response.headers.get("content-length"))).toBe(bytes.byteLength);
  const out: Listed[] = [];
  for await (const { entry, body } of readTar(new Response(bytes).body!)) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of body) chunks.push(chunk);
    out.push(entry.type === "file" ? { ...entry, content: await hex(await bytesOf(new Blob(chunks).stream())) } : { ...entry });
  }
  return out;
}

async function newVolume(key: string, name: string, sizeGb = 1): Promise<Volume> {
  const created = await callJson<Volume>("POST", "/v1/volumes", { key, body: { name, size_gb: sizeGb } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

const volume = async (key: string, id: string) => (await callJson<Volume>("GET", `/v1/volumes/${id}`, { key })).body;

const chunksOf = async (accountId: string, volumeId: string) => (await storedNames(accountId, volumeId)).filter((name) => name.startsWith("chunks/"));

/** When each chunk of the volume was last written: a chunk stored again gets a new time. */
async function chunkTimes(accountId: string, volumeId: string): Promise<Record<string, number>> {
  const prefix = volumePrefix(accountId, volumeId);
  const listed = await env.VOLUMES.list({ prefix: `${prefix}chunks/` });
  return Object.fromEntries(listed.objects.map((object) => [object.key.slice(prefix.length), object.uploaded.getTime()]));
}
const manifestsOf = async (accountId: string, volumeId: string) => (await storedNames(accountId, volumeId)).filter((name) => name.startsWith("manifests/"));

function refused(answer: { status: number; body: unknown }, status: number, error: string, message: RegExp): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body).toEqual({ error, message: expect.stringMatching(message) });
}

describe("/v1/volumes/{id}/files", () => {
  it("gives back byte-identical what a PUT extracted: a 9 MiB file, empty files and directories, links, long names; a subpath, a single file and the root", async () => {
    const { id: accountId, key } = await newAccount();
    const { id } = await newVolume(key, "round-trip");
    const big = randomBytes(9 * MiB + 5);
    const small = new TextEncoder().encode("bonjour\n");
    const entries = [
      dir("a", 0o750), file("a/big.bin", big), file("a/empty.txt", new Uint8Array(), 0o600), dir("a/empty-dir"),
      { name: "a/link", type: "symlink", mode: 0o777, size: 0, mtime: MTIME, linkName: "big.bin" } as TarWriteEntry,
      dir(`a/${LONG.split("/")[0]}`), file(`a/${LONG}`, small, 0o755),
    ];
    expect((await put(key, id, "/data/in", await tarOf(entries))).status).toBe(204);
    expect(await volume(key, id)).toMatchObject({ version: 1, used_bytes: big.byteLength + small.byteLength });

    const want = await Promise.all(entries.map(async (entry) => {
      const { body, ...rest } = entry;
      const content = entry.type === "file" ? await hex((body as Uint8Array[])[0]!) : undefined;
      return { ...rest, ...(content === undefined ? {} : { content }) };
    }));
    const sorted = (list: Listed[]) => [...list].sort((x, y) => (x.name < y.name ? -1 : 1));
    expect(sorted(await listed(key, id, "/data/in/a"))).toEqual(sorted(want as Listed[]));
    expect(await listed(key, id, "/data/in/a/big.bin")).toEqual([{ name: "big.bin", type: "file", mode: 0o644, size: big.byteLength, mtime: MTIME, content: await hex(big) }]);
    // The volume's root is its content, parents made on the way with their own mode.
    const root = await listed(key, id, "/");
    expect(root.slice(0, 2)).toEqual([
      { name: "data", type: "directory", mode: 0o755, size: 0, mtime: expect.any(Number) },
      { name: "data/in", type: "directory", mode: 0o755, size: 0, mtime: expect.any(Number) },
    ]);
    expect(root).toHaveLength(entries.length + 2);
    expect(await listed(key, id, "/data/")).toHaveLength(entries.length + 2);
  });

  it("stores no chunk twice: the same content again adds none, one byte changed in a 20 MiB file adds exactly one", async () => {
    const { id: accountId, key } = await newAccount();
    const { id } = await newVolume(key, "dedup");
    const content = randomBytes(20 * MiB);
    const archive = await tarOf([file("weights.bin", content)]);
    expect((await put(key, id, "/", archive)).status).toBe(204);
    const first = await chunksOf(accountId, id);
    expect(first).toHaveLength(3);
    expect(await volume(key, id)).toMatchObject({ version: 1, used_bytes: 20 * MiB, stored_bytes: 20 * MiB });
    const times = await chunkTimes(accountId, id);

    await scheduler.wait(5);
    expect((await put(key, id, "/", archive)).status).toBe(204);
    expect(await chunksOf(accountId, id)).toEqual(first);
    expect(await chunkTimes(accountId, id)).toEqual(times);
    expect(await volume(key, id)).toMatchObject({ version: 1 });
    expect(await manifestsOf(accountId, id)).toHaveLength(1);

    content[9 * MiB + 17] = content[9 * MiB + 17]! ^ 0xff;
    await scheduler.wait(5);
    expect((await put(key, id, "/", await tarOf([file("weights.bin", content)]))).status).toBe(204);
    const after = await chunksOf(accountId, id);
    // The old middle chunk is freed with the version that alone kept it; the other two were not stored again.
    expect(after.filter((name) => !first.includes(name))).toHaveLength(1);
    const kept = after.filter((name) => first.includes(name));
    expect(kept).toHaveLength(2);
    const timesAfter = await chunkTimes(accountId, id);
    for (const name of kept) expect(timesAfter[name]).toBe(times[name]);
    expect(await volume(key, id)).toMatchObject({ version: 2, used_bytes: 20 * MiB, stored_bytes: 20 * MiB });
    expect(await listed(key, id, "/weights.bin")).toEqual([expect.objectContaining({ content: await hex(content) })]);
  });

  it("puts over what is there: an entry replaces its path, a directory replaced by a file takes its content along, the rest stays", async () => {
    const { key } = await newAccount();
    const { id } = await newVolume(key, "overlay");
    const text = (s: string) => new TextEncoder().encode(s);
    expect((await put(key, id, "/w", await tarOf([file("keep.txt", text("keep")), file("old.txt", text("old")), dir("d"), file("d/inner", text("x"))]))).status).toBe(204);
    expect((await put(key, id, "/w", await tarOf([file("old.txt", text("new")), file("d", text("now a file"))]))).status).toBe(204);
    const names = (await listed(key, id, "/w")).map((entry) => [entry.name, entry.type, entry.size]);
    expect(names).toEqual([["w", "directory", 0], ["w/d", "file", 10], ["w/keep.txt", "file", 4], ["w/old.txt", "file", 3]]);
    expect(await volume(key, id)).toMatchObject({ version: 2, used_bytes: 17 });
  });

  it("refuses bad paths naming path, a missing path or volume with 404, and another account's volume", async () => {
    const { key } = await newAccount();
    const { id } = await newVolume(key, "paths");
    const empty = await tarOf([]);
    for (const path of ["data", "/a/../b", "/a//b", "/./a", "", `/${"x".repeat(4097)}`]) {
      refused(await callJson("GET", filesPath(id, path), { key }), 400, "invalid", /^path: must be an absolute path in the volume/);
      refused(await put(key, id, path, empty), 400, "invalid", /^path: must be an absolute path in the volume/);
    }
    refused(await callJson("GET", filesPath(id, "/nothing/here"), { key }), 404, "not_found", new RegExp(`^path: no file or directory /nothing/here in volume ${id}$`));
    refused(await callJson("GET", filesPath("vol_aaaaaaaaaaaaaaaa", "/"), { key }), 404, "not_found", /vol_aaaaaaaaaaaaaaaa/);
    const stranger = await newAccount();
    refused(await callJson("GET", filesPath(id, "/"), { key: stranger.key }), 404, "not_found", new RegExp(id));
    refused(await put(stranger.key, id, "/", empty), 404, "not_found", new RegExp(id));
    // An empty volume's root is an empty archive; the caller needs a key.
    expect(await listed(key, id, "/")).toEqual([]);
    expect((await call("GET", filesPath(id, "/"))).status).toBe(401);
  });

  it("refuses malformed, cut and unsupported archives naming the body, saving nothing", async () => {
    const { id: accountId, key } = await newAccount();
    const { id } = await newVolume(key, "bad-bodies");
    const good = await tarOf([file("f.bin", randomBytes(3 * MiB))]);
    const hardLink = tarEntryHead({ name: "h", type: "file", mode: 0o644, size: 0, mtime: MTIME });
    hardLink[156] = "1".charCodeAt(0);
    hardLink.fill(0x20, 148, 156);
    hardLink.set(new TextEncoder().encode(`${hardLink.reduce((sum, byte) => sum + byte, 0).toString(8).padStart(6, "0")}\0 `), 148);
    const cases: [BodyInit | null, RegExp][] = [
      [new TextEncoder().encode("not a tar archive ".repeat(100)), /^the request body \(a tar archive\): the header at byte 0 has a checksum that is not octal/],
      [good.subarray(0, 2 * MiB), /^the request body \(a tar archive\): the archive ends inside the data of f\.bin/],
      [good.subarray(0, good.byteLength - 2 * TAR_BLOCK_BYTES), /^the request body \(a tar archive\): the archive ends at byte \d+ without its end-of-archive blocks/],
      [new Uint8Array([...hardLink, ...new Uint8Array(1024)]), /^the request body \(a tar archive\): h is a hard link/],
      [await tarOf([{ name: "p", type: "fifo", mode: 0o600, size: 0, mtime: MTIME }]), /^the request body \(a tar archive\): p is a FIFO: a volume holds files, directories and symbolic links$/],
      [new Uint8Array(), /^the request body \(a tar archive\): the archive is empty$/],
    ];
    for (const [body, message] of cases) refused(await put(key, id, "/in", body), 400, "bad_request", message);
    expect(await volume(key, id)).toMatchObject({ version: 0, used_bytes: 0 });
    expect(await manifestsOf(accountId, id)).toEqual([]);
  });

  it("refuses a file or link where a directory must be with 409 naming the path", async () => {
    const { key } = await newAccount();
    const { id } = await newVolume(key, "not-dirs");
    const text = new TextEncoder().encode("x");
    expect((await put(key, id, "/", await tarOf([file("f", text), { name: "l", type: "symlink", mode: 0o777, size: 0, mtime: MTIME, linkName: "." }]))).status).toBe(204);
    refused(await put(key, id, "/f", await tarOf([file("g", text)])), 409, "conflict", /^path: \/f is a file in the volume, not a directory: the archive is extracted into a directory$/);
    refused(await put(key, id, "/f/deeper", await tarOf([file("g", text)])), 409, "conflict", /^path: \/f is a file in the volume, not a directory: \/f\/deeper cannot be made under it$/);
    refused(await put(key, id, "/", await tarOf([file("l/g", text)])), 409, "conflict", /^path: \/l is a symbolic link in the volume, not a directory: \/l\/g cannot be made under it$/);
    expect(await volume(key, id)).toMatchObject({ version: 1 });
  });

  it("refuses content over size_gb with 413 as soon as an archive's header says so, saving nothing", async () => {
    const { id: accountId, key } = await newAccount();
    const { id } = await newVolume(key, "small");
    // Only the header of a 2 GB file: the refusal comes before its bytes would.
    const head = tarEntryHead({ name: "huge.bin", type: "file", mode: 0o644, size: 2e9, mtime: MTIME });
    refused(await put(key, id, "/", new Uint8Array([...head, ...new Uint8Array(MiB)])), 413, "payload_too_large",
      /^size_gb: the volume would hold at least 2000000000 bytes, over its size_gb \(1 GB, 1000000000 bytes\); nothing is saved/);
    expect(await volume(key, id)).toMatchObject({ version: 0 });
    expect(await storedNames(accountId, id)).toEqual([]);
  });

  it("counts what the version keeps against size_gb: the base's content and the archive's together", async () => {
    const { id: accountId, key } = await newAccount();
    const { id } = await newVolume(key, "sum");
    const place = volumePlace(env, accountId, id);
    const base = { format: 1 as const, entries: [{ type: "file" as const, path: "old.bin", mode: 0o644, mtime_ms: 0, size: 60, chunks: ["a".repeat(64)] }] };
    const archive = tarStream([file("new.bin", randomBytes(50))]);
    await expect(extractArchive(place, base, "", archive, 100, 0)).rejects.toThrow(/^size_gb: the volume would hold 110 bytes, over its size_gb/);
    const fits = await extractArchive(place, base, "", tarStream([file("old.bin", randomBytes(90))]), 100, 0);
    expect(fits.manifest.entries.map((entry) => entry.path)).toEqual(["old.bin"]);
  });

  it("cuts the archive short, never passing it off as whole, when a chunk is missing from storage", async () => {
    const { id: accountId, key } = await newAccount();
    const { id } = await newVolume(key, "damaged");
    expect((await put(key, id, "/", await tarOf([file("a.bin", randomBytes(3 * MiB)), file("b.bin", randomBytes(9 * MiB))]))).status).toBe(204);
    const [chunk] = await chunksOf(accountId, id);
    await env.VOLUMES.delete(`${volumePrefix(accountId, id)}${chunk}`);
    const response = await call("GET", filesPath(id, "/"), { key });
    expect(response.status).toBe(200);
    await expect(response.arrayBuffer()).rejects.toThrow();
    // The stream the archive goes into is aborted, not left waiting.
    const answer = await env.ACCOUNTS.getByName(accountId).volumeContent(keyCredential(key), id);
    if (!answer.ok) throw new Error(answer.message);
    const place = volumePlace(env, accountId, id);
    const aborted: unknown[] = [];
    const sink = new WritableStream<Uint8Array>({ abort: (reason) => void aborted.push(reason) });
    const archive = archiveOf(place, (await readManifest(place, answer.content.manifest))!, "")!;
    await expect(archive.writeTo(sink)).rejects.toThrow(`${chunk!.slice("chunks/".length)} of `);
    expect(aborted).toEqual([expect.objectContaining({ message: expect.stringMatching(/is not stored in volume/) })]);
  });

  it("refuses an archive of more chunks than one request reads, naming path, before reading any", async () => {
    const { id: accountId } = await newAccount();
    const chunks = Array.from({ length: 4501 }, (_, i) => i.toString(16).padStart(64, "0"));
    const file = (path: string) => ({ type: "file" as const, path, mode: 0o644, mtime_ms: 0, size: chunks.length * 8 * MiB, chunks });
    const manifest = { format: 1 as const, entries: [{ type: "dir" as const, path: "d", mode: 0o755, mtime_ms: 0 }, file("d/a"), file("d/b")] };
    const place = volumePlace(env, accountId, "vol_aaaaaaaaaaaaaaaa");
    expect(archiveOf(place, manifest, "d/a")?.bytes).toBeGreaterThan(0);
    expect(() => archiveOf(place, manifest, "d")).toThrow("path: /d holds 9002 chunks, more than one archive reads (9000, about 70 GiB): ask for the directories in it one at a time");
  });

  it("refuses a PUT while an instance has the volume attached read-write (409 naming it); a GET still answers", async () => {
    const { key } = await newAccount();
    const { id } = await newVolume(key, "busy");
    expect((await put(key, id, "/", await tarOf([file("a", new Uint8Array(3))]))).status).toBe(204);
    const instance = await launchOn(agent, key, { volumes: [{ volume_id: id }] });
    refused(await put(key, id, "/", await tarOf([file("b", new Uint8Array(3))])), 409, "conflict", new RegExp(`^volume ${id} is attached read-write to instance ${instance}: only that instance writes it`));
    expect((await listed(key, id, "/")).map((entry) => entry.name)).toEqual(["a"]);
    expect(await volume(key, id)).toMatchObject({ version: 1 });
  });
});
