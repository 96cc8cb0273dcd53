// The streaming writer as GNU tar extracts it: every type, long names, empty and over-8-MiB files
// byte-identical with their modes and times; bodies drawn only as the archive is read; a body of the
// wrong length errors the stream instead of writing a corrupt archive.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { createReadStream } from "node:fs";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { testTempDir } from "../test/support/agent/temp-dir.ts";
import { readTar } from "./tar-read.ts";
import { tarStream, type TarWriteEntry } from "./tar-write.ts";

const MTIME = Date.UTC(2026, 0, 2, 3, 4, 5) / 1000;
const LONG_NAME = `${"répertoire-".repeat(12)}/${"model-".repeat(30)}.safetensors`;

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** `tar -x` of the stream into `into`, fed as the stream gives it. */
async function extract(stream: ReadableStream<Uint8Array>, into: string): Promise<void> {
  const child = spawn("tar", ["-x", "-C", into], { stdio: ["pipe", "ignore", "pipe"] });
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  Readable.fromWeb(stream as import("node:stream/web").ReadableStream<Uint8Array>).pipe(child.stdin);
  const [code] = (await once(child, "close")) as [number];
  expect(errors).toBe("");
  expect(code).toBe(0);
}

/** Pieces of `bytes` no larger than 1 MiB, as a file's body arrives. */
function* piecesOf(bytes: Uint8Array): Generator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += 1 << 20) yield bytes.subarray(at, at + (1 << 20));
}

describe("tarStream", () => {
  it("writes what tar -x extracts byte-identical: every type, long names, empty and 9 MiB files, modes and times", async () => {
    const into = testTempDir("tar-write-");
    const big = randomBytes(9 * 1024 * 1024 + 77);
    const small = Buffer.from("bonjour\n");
    const entries: (TarWriteEntry & { content?: Uint8Array })[] = [
      { name: "data", type: "directory", mode: 0o750, size: 0, mtime: MTIME },
      { name: "data/empty-dir", type: "directory", mode: 0o755, size: 0, mtime: MTIME },
      { name: "data/empty.txt", type: "file", mode: 0o600, size: 0, mtime: MTIME, content: new Uint8Array() },
      { name: "data/big.bin", type: "file", mode: 0o644, size: big.byteLength, mtime: MTIME, content: big, body: piecesOf(big) },
      { name: "data/données.txt", type: "file", mode: 0o755, size: small.byteLength, mtime: MTIME, content: small, body: [small] },
      { name: `data/${LONG_NAME.split("/")[0]}`, type: "directory", mode: 0o755, size: 0, mtime: MTIME },
      { name: `data/${LONG_NAME}`, type: "file", mode: 0o644, size: small.byteLength, mtime: MTIME, content: small, body: (async function* () { yield small; })() },
      { name: "data/link", type: "symlink", mode: 0o777, size: 0, mtime: MTIME, linkName: `../${"cible-".repeat(30)}` },
    ];
    await extract(tarStream(entries), into);
    for (const entry of entries) {
      const path = join(into, entry.name);
      const stats = await lstat(path);
      if (entry.type === "symlink") expect(await readlink(path)).toBe(entry.linkName);
      else expect(stats.mode & 0o7777).toBe(entry.mode);
      if (entry.type === "file") expect((await readFile(path)).equals(entry.content!)).toBe(true);
      if (entry.type !== "directory" || entry.name === "data/empty-dir") expect(Math.floor(stats.mtimeMs / 1000)).toBe(MTIME);
    }
    expect(await readdir(join(into, "data/empty-dir"))).toEqual([]);
  });

  it("is read back by readTar as written", async () => {
    const body = randomBytes(3 * 512 + 1);
    const archive = tarStream([
      { name: "a", type: "directory", mode: 0o755, size: 0, mtime: MTIME },
      { name: "a/f", type: "file", mode: 0o644, size: body.byteLength, mtime: MTIME, body: [body.subarray(0, 10), body.subarray(10)] },
      { name: "a/pipe", type: "fifo", mode: 0o600, size: 0, mtime: MTIME },
    ]);
    const read: unknown[] = [];
    for await (const { entry, body: bytes } of readTar(archive)) {
      const chunks: Uint8Array[] = [];
      for await (const chunk of bytes) chunks.push(chunk);
      read.push({ ...entry, content: Buffer.concat(chunks).toString("hex") });
    }
    expect(read).toEqual([
      { name: "a", type: "directory", mode: 0o755, size: 0, mtime: MTIME, content: "" },
      { name: "a/f", type: "file", mode: 0o644, size: body.byteLength, mtime: MTIME, content: body.toString("hex") },
      { name: "a/pipe", type: "fifo", mode: 0o600, size: 0, mtime: MTIME, content: "" },
    ]);
  });

  it("draws a body only when the archive reaches it", async () => {
    const drawn: string[] = [];
    function* body(name: string) {
      drawn.push(name);
      yield new Uint8Array(600);
    }
    const entries = ["one", "two"].map((name): TarWriteEntry => ({ name, type: "file", mode: 0o644, size: 600, mtime: MTIME, body: body(name) }));
    const reader = tarStream(entries).getReader();
    // The first file's header, body and padding: the stream reads ahead one piece, the second header, not its body.
    for (let i = 0; i < 3; i++) await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(drawn).toEqual(["one"]);
    await reader.cancel();
  });

  it("errors the stream when a body is shorter or longer than its size", async () => {
    const file = testTempDir("tar-write-size-");
    execFileSync("sh", ["-c", `printf 12345 > ${join(file, "five")}`]);
    const short = tarStream([{ name: "f", type: "file", mode: 0o644, size: 6, mtime: MTIME, body: createReadStream(join(file, "five")) }]);
    await expect(bytesOf(short)).rejects.toThrow("f: its body has 5 bytes where its header says 6");
    const long = tarStream([{ name: "g", type: "file", mode: 0o644, size: 4, mtime: MTIME, body: createReadStream(join(file, "five")) }]);
    await expect(bytesOf(long)).rejects.toThrow("g: its body has more than the 4 bytes its header says");
  });

  it("writes an archive of no entries that tar reads", async () => {
    const archive = await bytesOf(tarStream([]));
    expect(archive.byteLength).toBe(1024);
    expect(execFileSync("tar", ["-t"], { input: archive }).toString()).toBe("");
  });
});
