// A real HTTP server that answers a big PUT early and closes the connection (as the edge does with a
// 413): the CLI's streamedPut hands over that answer, where fetch reports only the broken socket.
// The PUT asks first (Expect: 100-continue): a server that refuses by the headers gets no byte of the
// body, and one that never answers the question gets the body a second later.
import { createServer, type Server } from "node:http";
import { createServer as createTcpServer, type AddressInfo } from "node:net";
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

  it("sends no byte of the body to a server that refuses it by its headers", async () => {
    let bodyBytes = 0;
    const refusing = createServer((request) => request.on("data", (chunk: Buffer) => (bodyBytes += chunk.byteLength)));
    refusing.on("checkContinue", (_request, response) => response.writeHead(413, { "content-type": "text/html", connection: "close" }).end("<html>too large</html>"));
    await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
    try {
      const port = (refusing.address() as AddressInfo).port;
      const answer = await streamedPut(`http://127.0.0.1:${port}/`, { "content-length": String(256 * 1024 * 1024) }, bigBody());
      expect(answer).toMatchObject({ status: 413, text: "<html>too large</html>" });
      expect(bodyBytes).toBe(0);
    } finally {
      refusing.close();
    }
  });

  it("sends the body anyway to a server that never answers the question, and once to one that answers late", async () => {
    // HTTP/1.1 by hand: no 100 (Continue), or one 1.5 s late; the answer comes a moment after the body.
    const heard: string[] = [];
    let continueAfterMs: number | null = null;
    const server = createTcpServer((socket) => {
      let seen = Buffer.alloc(0);
      let answered = false;
      socket.on("data", (chunk: Buffer) => {
        seen = Buffer.concat([seen, chunk]);
        const headEnd = seen.indexOf("\r\n\r\n");
        if (headEnd < 0 || seen.byteLength - headEnd - 4 < 5 || answered) return;
        answered = true;
        setTimeout(() => {
          heard.push(seen.subarray(0, headEnd).toString(), seen.subarray(headEnd + 4).toString());
          socket.end("HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n");
        }, 1_000);
      });
      if (continueAfterMs !== null) setTimeout(() => socket.write("HTTP/1.1 100 Continue\r\n\r\n"), continueAfterMs);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      expect((await streamedPut(url, { "content-length": "5" }, Readable.from([Buffer.from("hello")]))).status).toBe(204);
      expect(heard[0]).toMatch(/^expect: 100-continue$/im);
      expect(heard[1]).toBe("hello");
      // The late 100 comes while the body is still going: it must not be piped a second time.
      continueAfterMs = 1_500;
      const slowBody = Readable.from((async function* () {
        yield Buffer.from("hel");
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        yield Buffer.from("lo");
      })());
      expect((await streamedPut(url, { "content-length": "5" }, slowBody)).status).toBe(204);
      expect(heard[3]).toBe("hello");
    } finally {
      server.close();
    }
  });
});
