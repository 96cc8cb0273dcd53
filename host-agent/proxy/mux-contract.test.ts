// The multiplexer contract (test/support/mux/contract-suite.ts) run against the agent's end: ProxyStreams
// over a transport that encodes and decodes every frame, in front of a real upstream server that
// streams response bodies, reads request bodies and echoes WebSocket messages.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { finished } from "node:stream/promises";
import { afterAll, beforeAll, expect } from "vitest";
import { WebSocketServer } from "ws";
import { decodeAgentMessage, decodeServerMessage, encodeMessage } from "../../protocol/codec.ts";
import type { AgentMessage, ServerMessage } from "../../protocol/messages.ts";
import { runMuxContract, sentFrameLog, type MuxEndUnderTest } from "../../test/support/mux/contract-suite.ts";
import { decodeDataFrame, encodeDataFrame, type DataKind } from "../../protocol/mux/frames.ts";
import { listenOnLoopback, shutServer } from "../../test/support/agent/loopback-server.ts";
import { waitUntil } from "../../test/support/agent/wait-until.ts";
import { createLogger } from "../log.ts";
import type { Endpoint } from "../runtime/runtime.ts";
import { ProxyStreams } from "./proxy-streams.ts";
import type { StreamTransport } from "./stream-transport.ts";

const ID = "i-muxcontract2345a";
let upstream: Server;
let endpoint: Endpoint;
/** Close code and reason each upstream WebSocket received, by the stream id in its path. */
const upstreamCloses = new Map<number, { code: number; reason: string }>();
/** Stream ids stay unique across tests, so each upstream socket is told apart by its id. */
let nextStream = 1;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const sends = Number(new URL(req.url ?? "/", "http://upstream").searchParams.get("sends"));
    res.writeHead(200, { "content-type": "application/octet-stream" }).flushHeaders();
    const chunk = Buffer.alloc(64 * 1024);
    const write = async () => {
      for (let left = sends; left > 0 && !res.destroyed; left -= chunk.byteLength) {
        if (!res.write(chunk.subarray(0, Math.min(left, chunk.byteLength)))) await Promise.race([once(res, "drain"), once(res, "close")]);
      }
    };
    const read = async () => {
      req.resume();
      await finished(req);
    };
    // The response ends once the request body is read: the agent ends the exchange with it.
    Promise.all([write(), read()]).then(() => res.end(), () => res.destroy());
  });
  new WebSocketServer({ server: upstream }).on("connection", (ws, req) => {
    const stream = Number(new URL(req.url ?? "/", "http://upstream").searchParams.get("stream"));
    ws.on("message", (data, isBinary) => ws.send(data, { binary: isBinary }));
    ws.on("close", (code, reason) => upstreamCloses.set(stream, { code, reason: reason.toString("utf8") }));
  });
  endpoint = await listenOnLoopback(upstream);
});
afterAll(() => shutServer(upstream));

async function agentEnd(): Promise<MuxEndUnderTest> {
  const log = sentFrameLog();
  const transport: StreamTransport = {
    send: (message: AgentMessage) => log.message(decodeAgentMessage(encodeMessage(message))),
    sendData: (kind: DataKind, stream: number, payload: Uint8Array) => log.data(decodeDataFrame(encodeDataFrame(kind, stream, payload))),
    sendFrame: () => expect.fail("this end's welcome offers no response frames"),
    congested: () => false,
    whenUncongested: (callback) => setImmediate(callback),
  };
  const streams = new ProxyStreams({ resolvePort: async () => endpoint, logs: async () => null, exec: async () => null }, transport, createLogger(() => {}));

  const fromMachine = (message: ServerMessage) => {
    const decoded = decodeServerMessage(encodeMessage(message));
    if (!decoded.ok) throw new Error(decoded.reason);
    const received = decoded.message;
    if (received.type === "http_request" || received.type === "ws_open") streams.open(received);
    else if (received.type === "window" || received.type === "end" || received.type === "abort" || received.type === "ws_close") streams.receive(received);
  };
  const answered = (stream: number, type: "http_response" | "ws_accepted") =>
    waitUntil(() => (log.sent.some((f) => "message" in f && f.message.type === type && f.message.stream === stream) ? true : undefined), `${type} for ${stream}`);

  return {
    ...log,
    settlesStreams: false,
    get openStreams() {
      return streams.openCount;
    },
    async openHttp({ sends, receives }) {
      const stream = nextStream++;
      fromMachine({
        type: "http_request", stream, instance_id: ID, port: 8000, method: receives ? "POST" : "GET",
        path: `/exchange?sends=${sends}`, headers: [], has_body: receives,
      });
      // A request with a body reaches the upstream with its first bytes; the stream takes them at once.
      if (!receives) await answered(stream, "http_response");
      return stream;
    },
    async openWebSocket() {
      const stream = nextStream++;
      fromMachine({ type: "ws_open", stream, instance_id: ID, port: 8000, path: `/ws?stream=${stream}`, headers: [], protocols: [] });
      await answered(stream, "ws_accepted");
      return stream;
    },
    localClose: (stream) => waitUntil(() => upstreamCloses.get(stream), `the upstream close of ${stream}`),
    deliver: fromMachine,
    deliverData(kind, stream, payload) {
      const frame = decodeDataFrame(encodeDataFrame(kind, stream, payload));
      if ("error" in frame) throw new Error(frame.error);
      return streams.receiveData(frame);
    },
    disconnect: () => streams.closeAll(),
    async close() {
      streams.closeAll();
    },
  };
}

runMuxContract("the agent's ProxyStreams", agentEnd);
