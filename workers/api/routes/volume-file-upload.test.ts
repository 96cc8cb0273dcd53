// A file into a volume in resumable parts with no instance (PUT /v1/volumes/{id}/files with `upload`),
// in workerd against miniflare's R2: parts of whole 8 MiB chunks then the final one, byte-identical
// on GET; the staged size the authority (a wrong offset 409 with it, a part cut short keeping its
// whole chunks); a final part sent again 204; misaligned parts, content over size_gb, a volume
// attached read-write and another account's volume refused; an upload's chunks kept while a version
// that named them is replaced, and forgotten with the upload an hour after its last part.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { chunkName, manifestName, volumeObjectKey, VOLUME_CHUNK_BYTES } from "../../../protocol/volumes.ts";
import { readTar } from "../../../standards/tar-read.ts";
import { tarStream } from "../../../standards/tar-write.ts";
import { call, callJson, newAccount, keyCredential } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { launchOn } from "../../../test/support/workerd/instances.ts";
import { advanceClock, withFrozenClock } from "../../../test/support/workerd/test-clock.ts";
import { storedNames } from "../../../test/support/workerd/volume-content.ts";
import { hex, randomBytes } from "../../../test/support/workerd/random-bytes.ts";

interface Volume { id: string; version: number; used_bytes: number; stored_bytes: number }
interface Answer { status: number; headers: Headers; body: unknown }

const MiB = 1024 * 1024;
const CHUNK = VOLUME_CHUNK_BYTES;
const HOUR = 3_600_000;

let agent: FakeAgent;
beforeAll(async () => {
  agent = await FakeAgent.online("volume-upload-host", ["rtx4090"]);
});

let uploads = 0;
/** A fresh upload id. */
const uploadId = () => `upload-${String(++uploads).padStart(12, "0")}`;

/** One part: `bytes` of the file at `offset`. */
function part(key: string, volume: string, path: string, upload: string, offset: number, bytes: Uint8Array | ReadableStream<Uint8Array>, final = false, length?: number): Promise<Answer> {
  const query = new URLSearchParams({ path, upload, offset: String(offset), ...(final ? { final: "1" } : {}) });
  const size = length ?? (bytes instanceof Uint8Array ? bytes.byteLength : 0);
  return callJson("PUT", `/v1/volumes/${volume}/files?${query}`, {
    key, rawBody: bytes, headers: { "content-type": "application/octet-stream", "content-length": String(size) },
  });
}

/** Sends `file` in parts of `partBytes`, the last with final=1; every answer in order. */
async function sendInParts(key: string, volume: string, path: string, upload: string, file: Uint8Array, partBytes: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let offset = 0; ; offset += partBytes) {
    const end = Math.min(offset + partBytes, file.byteLength);
    answers.push(await part(key, volume, path, upload, offset, file.subarray(offset, end), end === file.byteLength));
    if (end === file.byteLength) return answers;
  }
}

function refused(answer: Answer, status: number, error: string, message: RegExp, uploadOffset?: number): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body).toEqual({ error, message: expect.stringMatching(message) });
  expect(answer.headers.get("upload-offset")).toBe(uploadOffset === undefined ? null : String(uploadOffset));
}

async function newVolume(key: string, name: string): Promise<Volume> {
  const created = await callJson<Volume>("POST", "/v1/volumes", { key, body: { name, size_gb: 1 } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

const volume = async (key: string, id: string) => (await callJson<Volume>("GET", `/v1/volumes/${id}`, { key })).body;
const chunksOf = async (accountId: string, id: string) => (await storedNames(accountId, id)).filter((name) => name.startsWith("chunks/"));

/** The file at `path` as GET gives it back: its entry and its content's SHA-256 (null past 64 MiB, read and dropped). */
async function fetched(key: string, id: string, path: string) {
  const response = await call("GET", `/v1/volumes/${id}/files?${new URLSearchParams({ path })}`, { key });
  expect(response.status).toBe(200);
  for await (const { entry, body } of readTar(response.body!)) {
    const pieces: Uint8Array[] = [];
    const keep = entry.size <= 64 * MiB;
    for await (const piece of body) if (keep) pieces.push(piece);
    const sha256 = keep ? await hex(new Uint8Array(await new Blob(pieces).arrayBuffer())) : null;
    return { name: entry.name, type: entry.type, mode: entry.mode, size: entry.size, sha256 };
  }
  throw new Error(`no entry for ${path}`);
}

const tarPut = async (key: string, id: string, path: string, name: string, content: Uint8Array) =>
  (await call("PUT", `/v1/volumes/${id}/files?${new URLSearchParams({ path })}`, {
    key, rawBody: await new Response(tarStream([{ name, type: "file", mode: 0o644, size: content.byteLength, mtime: 0, body: [content] }])).arrayBuffer(),
    headers: { "content-type": "application/x-tar" },
  })).status;

describe("PUT /v1/volumes/{id}/files with upload", () => {
  it("takes a file in parts of whole chunks then the final one, its directory made, and gives it back byte-identical as the next version", async () => {
    const { id: accountId, key } = await newAccount();
    const { id } = await newVolume(key, "parts");
    const file = randomBytes(3 * CHUNK + 3 * MiB + 7);
    const upload = uploadId();
    const answers = await sendInParts(key, id, "/models/v1/weights.bin", upload, file, CHUNK);
    expect(answers.map((answer) => [answer.status, answer.headers.get("upload-offset")])).toEqual([
      [202, String(CHUNK)], [202, String(2 * CHUNK)], [202, String(3 * CHUNK)], [204, null],
    ]);
    expect(await volume(key, id)).toMatchObject({ version: 1, used_bytes: file.byteLength, stored_bytes: file.byteLength });
    expect(await fetched(key, id, "/models/v1/weights.bin")).toEqual({ name: "weights.bin", type: "file", mode: 0o644, size: file.byteLength, sha256: await hex(file) });
    expect((await fetched(key, id, "/models")).type).toBe("directory");
    expect(await chunksOf(accountId, id)).toHaveLength(4);

    // Another file in parts of two chunks, beside it; the same bytes again store no chunk.
    const again = await sendInParts(key, id, "/models/copy.bin", uploadId(), file, 2 * CHUNK);
    expect(again.map((answer) => answer.status)).toEqual([202, 204]);
    expect(await chunksOf(accountId, id)).toHaveLength(4);
    expect(await volume(key, id)).toMatchObject({ version: 2, used_bytes: 2 * file.byteLength, stored_bytes: file.byteLength });
    expect((await fetched(key, id, "/models/copy.bin")).sha256).toBe(await hex(file));
  });

  it("answers a part at another offset than the staged size 409 with Upload-Offset, and a final part sent again 204 without a second version", async () => {
    const { key } = await newAccount();
    const { id } = await newVolume(key, "offsets");
    const file = randomBytes(2 * CHUNK + 100);
    const upload = uploadId();
    refused(await part(key, id, "/f.bin", upload, CHUNK, file.subarray(CHUNK, 2 * CHUNK)), 409, "conflict", new RegExp(`^upload ${upload} has 0 bytes staged, not ${CHUNK}: send the part from offset 0$`), 0);
    expect((await part(key, id, "/f.bin", upload, 0, file.subarray(0, CHUNK))).status).toBe(202);
    refused(await part(key, id, "/f.bin", upload, 0, file.subarray(0, CHUNK)), 409, "conflict", new RegExp(`has ${CHUNK} bytes staged, not 0`), CHUNK);
    refused(await part(key, id, "/elsewhere.bin", upload, CHUNK, file.subarray(CHUNK, 2 * CHUNK)), 409, "conflict", new RegExp(`^path: upload ${upload} is of /f.bin, not /elsewhere.bin`), CHUNK);
    expect((await part(key, id, "/f.bin", upload, CHUNK, file.subarray(CHUNK), true)).status).toBe(204);
    expect(await volume(key, id)).toMatchObject({ version: 1 });

    // Its answer lost: the final part sent again is told the file's size, and from there it is 204.
    refused(await part(key, id, "/f.bin", upload, CHUNK, file.subarray(CHUNK), true), 409, "conflict", new RegExp(`^upload ${upload} is complete: its ${file.byteLength} bytes were written`), file.byteLength);
    expect((await part(key, id, "/f.bin", upload, file.byteLength, new Uint8Array(), true)).status).toBe(204);
    refused(await part(key, id, "/f.bin", upload, file.byteLength, new Uint8Array()), 409, "conflict", /is complete/, file.byteLength);
    expect(await volume(key, id)).toMatchObject({ version: 1, used_bytes: file.byteLength });
    expect((await fetched(key, id, "/f.bin")).sha256).toBe(await hex(file));
  });

  it("refuses a part one of whose chunks is no longer stored when it is appended (collected after the route skipped it), to be sent again", async () => {
    const { id: accountId, key } = await newAccount();
    const { id } = await newVolume(key, "collected");
    const gone = "ab".repeat(32);
    const upload = uploadId();
    const appended = await env.ACCOUNTS.getByName(accountId).appendVolumeUpload(keyCredential(key), {
      volume_id: id, upload_id: upload, path: "f.bin", offset: 0, chunks: [{ hash: gone, size: CHUNK }], stored: [], bytes_sent: 0, final: false,
    });
    expect(appended).toEqual({
      ok: false, code: "conflict", headers: { "Upload-Offset": "0" },
      message: `chunk ${gone} of the part was deleted while it was sent (a version freed it): send the part again from offset 0`,
    });
    const file = randomBytes(CHUNK);
    expect((await part(key, id, "/f.bin", upload, 0, file, true)).status).toBe(204);
  });

  it("keeps the whole chunks of a part cut short, to go on from", async () => {
    const { key } = await newAccount();
    const { id } = await newVolume(key, "cut");
    const file = randomBytes(3 * CHUNK + 10);
    const upload = uploadId();
    const cutAt = 2 * CHUNK + MiB;
    let sent = 0;
    const breaking = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= cutAt) return controller.error(new Error("the connection broke"));
        const piece = file.subarray(sent, Math.min(sent + MiB, cutAt));
        sent += piece.byteLength;
        controller.enqueue(piece);
      },
    });
    const answer = await part(key, id, "/f.bin", upload, 0, breaking, false, 3 * CHUNK);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    refused(await part(key, id, "/f.bin", upload, 0, file.subarray(0, CHUNK)), 409, "conflict", /has 16777216 bytes staged, not 0/, 2 * CHUNK);
    expect((await part(key, id, "/f.bin", upload, 2 * CHUNK, file.subarray(2 * CHUNK), true)).status).toBe(204);
    expect((await fetched(key, id, "/f.bin")).sha256).toBe(await hex(file));
  });

  it("refuses a part that is not whole chunks, before the final one, naming offset or the body; a part without its length; a path that is no file", async () => {
    const { id: accountId, key } = await newAccount();
    const { id } = await newVolume(key, "aligned");
    const upload = uploadId();
    refused(await part(key, id, "/f.bin", upload, 0, randomBytes(5 * MiB)), 400, "invalid", /^the request body: every part but the final one is whole chunks of 8388608 bytes \(8 MiB\), not 5242880 bytes$/);
    refused(await part(key, id, "/f.bin", upload, MiB, randomBytes(CHUNK)), 400, "invalid", /^offset: every part but the final one is whole chunks of 8388608 bytes \(8 MiB\), so a part starts at a multiple of it, not at 1048576$/);
    const noLength = await callJson("PUT", `/v1/volumes/${id}/files?${new URLSearchParams({ path: "/f.bin", upload, offset: "0" })}`, {
      key, rawBody: new ReadableStream({ pull: (controller) => (controller.enqueue(randomBytes(10)), controller.close()) }), headers: { "content-type": "application/octet-stream" },
    });
    refused(noLength as Answer, 400, "bad_request", /^Content-Length: a part of an upload into a volume is sent with its length/);
    for (const path of ["/", "/dir/"]) {
      const answer = await callJson("PUT", `/v1/volumes/${id}/files?${new URLSearchParams({ path, upload, offset: "0", final: "1" })}`, { key, rawBody: new Uint8Array(1) });
      refused(answer as Answer, 400, "invalid", /^path: must name a file with upload/);
    }
    const withoutUpload = await callJson("PUT", `/v1/volumes/${id}/files?path=/f.bin&offset=0`, { key, rawBody: new Uint8Array(1) });
    refused(withoutUpload as Answer, 400, "invalid", /^offset: is only taken with upload/);
    expect(await volume(key, id)).toMatchObject({ version: 0 });
    expect(await storedNames(accountId, id)).toEqual([]);
  });

  it("refuses a file under a file of the volume with 409 naming the path, before a byte is stored", async () => {
    const { id: accountId, key } = await newAccount();
    const { id } = await newVolume(key, "not-dirs");
    expect(await tarPut(key, id, "/", "f", new Uint8Array(3))).toBe(204);
    const before = await storedNames(accountId, id);
    refused(await part(key, id, "/f/deeper/g.bin", uploadId(), 0, randomBytes(CHUNK)), 409, "conflict", /^path: \/f is a file in the volume, not a directory: \/f\/deeper\/g\.bin cannot be made under it$/);
    expect(await storedNames(accountId, id)).toEqual(before);
    expect(await volume(key, id)).toMatchObject({ version: 1 });
  });

  it("refuses a file that would put the volume over its size_gb, or the volume's uploads past it together, with 413 before its part is read; replacing a file counts it once", async () => {
    const { id: accountId, key } = await newAccount();
    const { id } = await newVolume(key, "full");
    const account = env.ACCOUNTS.getByName(accountId);
    // 119 chunks of one zero chunk stored once: 998 MB of a 1 GB volume.
    const zeros = new Uint8Array(CHUNK);
    const zeroHash = await hex(zeros);
    await env.VOLUMES.put(volumeObjectKey(accountId, id, chunkName(zeroHash)), zeros);
    const big = 119 * CHUNK;
    const manifest = manifestName("bigfile0000000000000000");
    await env.VOLUMES.put(volumeObjectKey(accountId, id, manifest), JSON.stringify({ format: 1, entries: [{ type: "file", path: "big.bin", mode: 0o644, mtime_ms: 0, size: big, chunks: Array(119).fill(zeroHash) }] }));
    expect(await account.commitVolumeFiles(keyCredential(key), { volume_id: id, instance_id: null, base_version: 0, manifest, bytes_sent: 0 })).toMatchObject({ ok: true, version: 1 });

    const more = uploadId();
    refused(await part(key, id, "/more.bin", more, 0, randomBytes(CHUNK)), 413, "payload_too_large",
      new RegExp(`^size_gb: the volume would hold at least ${big + CHUNK} bytes with this file, over its size_gb \\(1 GB, 1000000000 bytes\\); upload ${more} has 0 bytes staged: grow the volume`), 0);
    expect(await chunksOf(accountId, id)).toEqual([chunkName(zeroHash)]);

    // An upload in big.bin's place staging as much again (its chunks the zero chunk, sent to the object as the route would):
    // a second one is refused for the two together, by the route before its body and by the object.
    const first = uploadId();
    const zeroChunks = Array.from({ length: 119 }, () => ({ hash: zeroHash, size: CHUNK }));
    expect(await account.appendVolumeUpload(keyCredential(key), { volume_id: id, upload_id: first, path: "big.bin", offset: 0, chunks: zeroChunks, stored: [], bytes_sent: 0, final: false }))
      .toEqual({ ok: true, offset: big, chunks: null });
    const second = uploadId();
    const together = /^size_gb: the volume's uploads would stage 1006632960 bytes together, over its size_gb \(1 GB, 1000000000 bytes\)/;
    refused(await part(key, id, "/big.bin", second, 0, randomBytes(CHUNK)), 413, "payload_too_large", together, 0);
    expect(await account.appendVolumeUpload(keyCredential(key), { volume_id: id, upload_id: second, path: "big.bin", offset: 0, chunks: [{ hash: zeroHash, size: CHUNK }], stored: [], bytes_sent: 0, final: false }))
      .toEqual({ ok: false, code: "payload_too_large", message: expect.stringMatching(together), headers: { "Upload-Offset": "0" } });
    // The first one's file replaces big.bin: the content is the new file alone.
    const tail = randomBytes(5);
    expect((await part(key, id, "/big.bin", first, big, tail, true)).status).toBe(204);
    expect(await volume(key, id)).toMatchObject({ version: 2, used_bytes: big + 5 });
    expect((await fetched(key, id, "/big.bin")).size).toBe(big + 5);
  });

  it("refuses parts while an instance has the volume attached read-write, and another account's volume as missing", async () => {
    const { key } = await newAccount();
    const { id } = await newVolume(key, "held");
    const upload = uploadId();
    const file = randomBytes(CHUNK + 5);
    expect((await part(key, id, "/f.bin", upload, 0, file.subarray(0, CHUNK))).status).toBe(202);
    const stranger = await newAccount();
    refused(await part(stranger.key, id, "/f.bin", upload, CHUNK, file.subarray(CHUNK), true), 404, "not_found", new RegExp(`^no volume ${id} in this account$`));
    const instance = await launchOn(agent, key, { volumes: [{ volume_id: id }] });
    refused(await part(key, id, "/f.bin", upload, CHUNK, file.subarray(CHUNK), true), 409, "conflict", new RegExp(`^volume ${id} is attached read-write to instance ${instance}: only that instance writes it`));
    expect(await volume(key, id)).toMatchObject({ version: 0 });
  });

  it("keeps an upload's chunks while the version that held them is replaced, and forgets an upload an hour after its last part, deleting what it alone kept", async () => {
    await withFrozenClock(async () => {
      const { id: accountId, key } = await newAccount();
      const { id } = await newVolume(key, "forgotten");
      const account = env.ACCOUNTS.getByName(accountId);
      const file = randomBytes(2 * CHUNK + 3);
      // Version 1 holds the file's first chunk; the upload skips storing it, then version 2 drops it.
      expect(await tarPut(key, id, "/", "head.bin", file.subarray(0, CHUNK))).toBe(204);
      const upload = uploadId();
      expect((await part(key, id, "/f.bin", upload, 0, file.subarray(0, 2 * CHUNK))).status).toBe(202);
      expect(await tarPut(key, id, "/", "head.bin", new Uint8Array(3))).toBe(204);
      expect(await chunksOf(accountId, id)).toHaveLength(3);
      expect((await part(key, id, "/f.bin", upload, 2 * CHUNK, file.subarray(2 * CHUNK), true)).status).toBe(204);
      expect((await fetched(key, id, "/f.bin")).sha256).toBe(await hex(file));

      // An upload left after one part: kept for the hour, then forgotten with its chunk.
      const left = uploadId();
      const abandoned = randomBytes(CHUNK);
      expect((await part(key, id, "/g.bin", left, 0, abandoned)).status).toBe(202);
      const before = await chunksOf(accountId, id);
      advanceClock(HOUR - 1000);
      await runDurableObjectAlarm(account);
      expect(await chunksOf(accountId, id)).toEqual(before);
      refused(await part(key, id, "/g.bin", left, 0, abandoned), 409, "conflict", /has 8388608 bytes staged/, CHUNK);
      advanceClock(HOUR);
      await runDurableObjectAlarm(account);
      const abandonedChunk = chunkName(await hex(abandoned));
      expect(before).toContain(abandonedChunk);
      expect(await chunksOf(accountId, id)).toEqual(before.filter((name) => name !== abandonedChunk));
      refused(await part(key, id, "/g.bin", left, CHUNK, new Uint8Array(3), true), 409, "conflict", /has 0 bytes staged, not 8388608/, 0);
      // The completed upload's id is forgotten too: its final part would now start a new upload.
      refused(await part(key, id, "/f.bin", upload, file.byteLength, new Uint8Array(), true), 409, "conflict", /has 0 bytes staged/, 0);
      expect((await fetched(key, id, "/f.bin")).sha256).toBe(await hex(file));
    });
  });
});
