// A file up in parts to a real HTTP server that stages them as the files routes do, behind a cap on
// request bodies that refuses bigger ones by their headers with a page of its own (as an edge does):
// the parts are halved until they pass, and a volume's stay whole 8 MiB chunks, halved no lower.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { uploadInParts, VOLUME_PART_UNIT } from "./upload-in-parts.ts";

const MiB = 1024 * 1024;
const dir = useTempDir("gpu-parts-");
let server: Server;
let url: string;
/** The bodies the edge takes, at most. */
let cap = 0;
/** Each part that reached the server: its offset, length and whether final. */
let parts: [number, number, boolean][] = [];
let staged = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    const query = new URL(request.url!, "http://server").searchParams;
    let length = 0;
    request.on("data", (chunk: Buffer) => (length += chunk.byteLength));
    request.on("end", () => {
      const offset = Number(query.get("offset"));
      const final = query.get("final") === "1";
      parts.push([offset, length, final]);
      staged = offset + length;
      if (final) return response.writeHead(204).end();
      response.writeHead(202, { "upload-offset": String(staged) }).end();
    });
  });
  server.on("checkContinue", (request, response) => {
    if (Number(request.headers["content-length"]) > cap) return response.writeHead(413, { "content-type": "text/html", connection: "close" }).end("<html>413 Request Entity Too Large</html>");
    response.writeContinue();
    server.emit("request", request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/volumes/vol_abcdefghijklmnop/files`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function upload(size: number, partUnit?: number) {
  const local = join(dir.path, `file-${size}`);
  writeFileSync(local, randomBytes(size));
  parts = [];
  return uploadInParts({ filesUrl: url, apiKey: "gpk_test", remotePath: "/f.bin", local, size, partBytes: 40 * MiB, partUnit, progress: () => undefined });
}

describe("uploadInParts behind an edge that caps bodies", () => {
  it("halves a volume's parts, each but the last whole 8 MiB chunks, until they pass", async () => {
    cap = 20 * MiB;
    await upload(40 * MiB + 5, VOLUME_PART_UNIT);
    expect(parts).toEqual([[0, 16 * MiB, false], [16 * MiB, 16 * MiB, false], [32 * MiB, 8 * MiB + 5, true]]);
  });

  it("halves an instance's parts to any size", async () => {
    cap = 15 * MiB;
    await upload(30 * MiB);
    expect(parts).toEqual([[0, 10 * MiB, false], [10 * MiB, 10 * MiB, false], [20 * MiB, 10 * MiB, true]]);
  });

  it("gives up on a volume's part refused at 8 MiB, where an instance's would go on halving", async () => {
    cap = 5 * MiB;
    await expect(upload(9 * MiB, VOLUME_PART_UNIT)).rejects.toThrow("HTTP 413: <html>413 Request Entity Too Large</html>");
    expect(parts).toEqual([]);
  });
});
