// A real HTTP server that answers a big PUT early and closes the connection (as the edge does with a
// 413): the CLI's streamedPut hands over that answer, where fetch reports only the broken socket.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusalOf, streamedPut } from "./streamed-put.ts";

let server: Server;
let url: string;
let received = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.on("data", (chunk: Buffer) => (received += chunk.byteLength));
    // Answers after the first megabyte and hangs up, leaving the rest unread.
    const answer = () => {
      response.writeHead(413, { "content-type": "application/json", connection: "close" });
      response.end(JSON.stringify({ error: "payload_too_large", message: "request body larger than 512 MB" }), () => request.socket.destroy());
    };
    const waiting = setInterval(() => received >= 1024 * 1024 && (clearInterval(waiting), answer()), 5);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/upload`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** 256 MiB of zeros, made as it is read. */
const bigBody = () => Readable.from((function* () {
  for (let i = 0; i < 4096; i++) yield Buffer.alloc(64 * 1024);
})());

describe("streamedPut", () => {
  it("resolves with the server's early answer and stops sending, where the connection is then cut", async () => {
    const answer = await streamedPut(url, { "content-type": "application/octet-stream" }, bigBody());
    expect(answer.status).toBe(413);
    expect(refusalOf(answer).message).toBe("request body larger than 512 MB (payload_too_large, HTTP 413)");
    expect(received).toBeLessThan(256 * 1024 * 1024);
  });

  it("says what is not JSON as the status and the text's start", () => {
    expect(refusalOf({ status: 502, text: "<html>Bad gateway</html>" }).message).toBe("HTTP 502: <html>Bad gateway</html>");
  });
});
