// A kept-alive connection to a container's port that the server closes just as the agent sends the
// next request on it (a server's idle timeout, 5 s in Node's http and in uvicorn, racing the
// request): a request that may be sent again is sent again on a new connection, and the client gets
// its answer, not a 502. The server here closes a connection as its second request arrives, so the
// race is won every time.
import { createServer, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataKind } from "../../protocol/mux/frames.ts";
import type { AgentMessage } from "../../protocol/messages.ts";
import { decodeResponseFrame, type ResponseFrame } from "../../protocol/mux/response-frame.ts";
import { waitUntil } from "../../test/support/agent/wait-until.ts";
import { createLogger } from "../log.ts";
import type { Endpoint } from "../runtime/runtime.ts";
import type { HttpRequestMessage } from "./http-proxy-stream.ts";
import { ProxyStreams } from "./proxy-streams.ts";
import type { StreamTransport } from "./stream-transport.ts";

class RecordingTransport implements StreamTransport {
  messages: AgentMessage[] = [];
  frames: ResponseFrame[] = [];
  send(message: AgentMessage): void {
    this.messages.push(message);
  }
  sendFrame(frame: Uint8Array): void {
    const decoded = decodeResponseFrame(frame);
    if ("error" in decoded) throw new Error(decoded.error);
    this.frames.push({ ...decoded, body: decoded.body.slice() });
  }
  sendData(): void {}
  congested(): boolean {
    return false;
  }
  whenUncongested(callback: () => void): void {
    callback();
  }
  /** The stream's answer: its response frame's status, or its abort's reason. */
  answerOf(stream: number): Promise<number | string> {
    return waitUntil(() => {
      const frame = this.frames.find((f) => f.stream === stream);
      if (frame) return frame.status;
      const abort = this.messages.find((m) => m.type === "abort" && m.stream === stream);
      return abort?.type === "abort" ? abort.reason : undefined;
    }, `stream ${stream}'s answer`);
  }
}

const connections: Socket[] = [];
let requestsSeen = 0;
const server = createServer((socket) => {
  connections.push(socket);
  let answered = 0;
  socket.on("data", (chunk) => {
    if (!chunk.includes("\r\n\r\n")) return;
    requestsSeen++;
    // Its idle timeout fired as the request arrived: closed, unanswered.
    if (answered === 1) return socket.destroy();
    answered++;
    const head = chunk.subarray(0, 5).toString() === "HEAD ";
    socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n${head ? "" : "ok"}`);
  });
});
let endpoint: Endpoint;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  endpoint = { host: "127.0.0.1", port: address.port };
});
afterAll(() => {
  for (const socket of connections) socket.destroy();
  server.close();
});

function setUp() {
  const transport = new RecordingTransport();
  const streams = new ProxyStreams({ resolvePort: async () => endpoint, logs: async () => null, exec: async () => null }, transport, createLogger(() => {}));
  streams.serverTakesWholeResponses("frame");
  return { transport, streams };
}

const request = (stream: number, method: string, hasBody = false): HttpRequestMessage => ({
  type: "http_request", stream, instance_id: "i-staleconn2345", port: 8000, method, path: `/${stream}`, headers: [], has_body: hasBody,
});

/** Stream `first` answered on a new connection, whose socket is then back in the agent's pool. */
async function kept(transport: RecordingTransport, streams: ProxyStreams, first: number): Promise<void> {
  streams.open(request(first, "GET"));
  expect(await transport.answerOf(first)).toBe(200);
  await new Promise((resolve) => setImmediate(resolve));
}

describe("a kept-alive upstream connection closed as a request is sent on it", () => {
  it("a request that may be sent again is sent on a new connection, once, and answered", async () => {
    const { transport, streams } = setUp();
    for (const [first, second, method] of [[1, 2, "GET"], [3, 4, "HEAD"], [5, 6, "DELETE"], [7, 8, "OPTIONS"]] as const) {
      await kept(transport, streams, first);
      const before = requestsSeen;
      streams.open(request(second, method));
      expect(await transport.answerOf(second), method).toBe(200);
      expect(requestsSeen - before, method).toBe(2);
    }
    expect(streams.openCount).toBe(0);
  });

  it("a POST, or a request whose body went out, is not sent again: the stream fails, as before", async () => {
    const { transport, streams } = setUp();
    await kept(transport, streams, 11);
    const before = requestsSeen;
    streams.open(request(12, "POST"));
    expect(await transport.answerOf(12)).toBe("upstream_unavailable");
    await kept(transport, streams, 13);
    streams.open(request(14, "PUT", true));
    streams.receiveData({ kind: DataKind.body, stream: 14, payload: Buffer.from("body") });
    streams.receive({ type: "end", stream: 14 });
    expect(await transport.answerOf(14)).toBe("upstream_unavailable");
    expect(requestsSeen - before).toBe(3);
  });
});
