// What a remote path is, read from the first entry of the archive the files route answers: GNU tar's
// own archives (ustar, GNU long names, pax) of a directory and a file, over a real HTTP server that
// sends an archive without end, which is left unread after its first entry; a 404 is "absent", any
// other refusal the API's message.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { firstEntryKind, remoteKind } from "./remote-kind.ts";

const dir = useTempDir("remote-kind-");
const LONG = "a-directory-name-longer-than-ustar-holds-".repeat(4);

/** GNU tar's archive of `name` (relative to the temp dir) in `format`. */
const tarOf = (name: string, format: string) => execFileSync("tar", ["-c", "--no-recursion", `--format=${format}`, "-C", dir.path, name]);

/** A stream that hands out `bytes` in pieces of `piece` bytes. */
function streamOf(bytes: Uint8Array, piece: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.slice(at, (at += piece)));
    },
  });
}

describe("firstEntryKind", () => {
  beforeAll(() => {
    mkdirSync(`${dir.path}/data/${LONG}`, { recursive: true });
    writeFileSync(`${dir.path}/data/weights.bin`, "w".repeat(5000));
    writeFileSync(`${dir.path}/data/${LONG}/inner.txt`, "x");
  });

  it.each(["ustar", "gnu", "pax"])("tells a directory from a file in GNU tar's %s archives, long names too, however the bytes are cut", async (format) => {
    const cases: [string, string][] = [["data", "directory"], ["data/weights.bin", "file"]];
    if (format !== "ustar") cases.push([`data/${LONG}`, "directory"], [`data/${LONG}/inner.txt`, "file"]);
    for (const [name, kind] of cases) {
      for (const piece of [7, 512, 65_536]) expect(await firstEntryKind(streamOf(tarOf(name, format), piece)), `${name} in pieces of ${piece}`).toBe(kind);
    }
  });

  it("an archive with no entry before its end is absent", async () => {
    expect(await firstEntryKind(streamOf(new Uint8Array(1024), 100))).toBe("absent");
  });
});

describe("remoteKind", () => {
  let server: Server;
  let url: string;
  let endlessClosed: Promise<void>;

  beforeAll(async () => {
    let closed: () => void;
    endlessClosed = new Promise((resolve) => (closed = resolve));
    server = createServer((request, response) => {
      const path = new URL(request.url!, "http://x").searchParams.get("path");
      if (path === "/missing") return response.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not_found", message: "no file or directory /missing in the instance" }));
      if (path === "/gone") return response.writeHead(409, { "content-type": "application/json" }).end(JSON.stringify({ error: "conflict", message: "the instance is destroyed" }));
      // A directory's header, then zeros for as long as anyone reads: only the header may be read.
      const header = tarOf("data", "ustar").subarray(0, 512);
      response.writeHead(200, { "content-type": "application/x-tar" });
      response.write(header);
      const more = () => response.write(new Uint8Array(64 * 1024)) && setImmediate(more);
      response.on("close", () => closed());
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/instances/i-x/files?path=`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("reads the first entry of an archive that never ends and lets the rest go; 404 is absent; other refusals are the API's", async () => {
    expect(await remoteKind(`${url}/data`, "gpu_test")).toBe("directory");
    await endlessClosed;
    expect(await remoteKind(`${url}/missing`, "gpu_test")).toBe("absent");
    await expect(remoteKind(`${url}/gone`, "gpu_test")).rejects.toThrow("the instance is destroyed (conflict, HTTP 409)");
  });
});
