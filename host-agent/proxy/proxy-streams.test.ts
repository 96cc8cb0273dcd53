// The proxy multiplexer in-process against a real upstream server: what a connection drop tears
// down, body frames racing the port lookup, socket congestion, oversized messages, window overruns,
// the connection's budget of unacknowledged bytes, and a kept-alive upstream connection the server
// closes as a request goes out on it.
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { DataKind } from "../../protocol/mux/frames.ts";
import type { AgentMessage } from "../../protocol/messages.ts";
import { INITIAL_WINDOW_BYTES } from "../../protocol/mux/flow-control.ts";
import { DATA_HEADER_BYTES, MAX_DATA_FRAME_BYTES, MAX_WS_MESSAGE_BYTES } from "../../protocol/mux/frames.ts";
import { decodeResponseFrame, type ResponseFrame } from "../../protocol/mux/response-frame.ts";
import { createLogger } from "../log.ts";
import type { Endpoint } from "../runtime/runtime.ts";
import { listenOnLoopback, shutServer } from "../../test/support/agent/loopback-server.ts";
import { waitUntil } from "../../test/support/agent/wait-until.ts";
import type { HttpRequestMessage } from "./http-proxy-stream.ts";
import { ProxyStreams } from "./proxy-streams.ts";
import { wholeResponsesOf } from "./response-stream.ts";
import { INSTANCE_LIMIT_BYTES, INSTANCE_SHARE_BYTES } from "./send-budget.ts";
import type { StreamTransport } from "./stream-transport.ts";

const ID = "i-proxystreams2345";

class RecordingTransport implements StreamTransport {
  messages: AgentMessage[] = [];
  bytes = new Map<number, number>();
  /** The data sent on each stream, copied as a socket does. */
  data = new Map<number, Buffer[]>();
  isCongested = false;
  #waiters: (() => void)[] = [];
  send(message: AgentMessage): void {
    this.messages.push(message);
  }
  /** Whole-response frames, decoded. */
  frames: ResponseFrame[] = [];
  sendFrame(frame: Uint8Array): void {
    const decoded = decodeResponseFrame(frame);
    if ("error" in decoded) throw new Error(decoded.error);
    // Copied, as a socket does: the agent may give the frame's buffer back once sent.
    this.frames.push({ ...decoded, body: decoded.body.slice() });
  }
  sendData(_kind: DataKind, stream: number, payload: Uint8Array): void {
    this.bytes.set(stream, (this.bytes.get(stream) ?? 0) + payload.byteLength);
    this.data.set(stream, [...(this.data.get(stream) ?? []), Buffer.from(payload)]);
  }
  /** Data bytes sent on `streams` together. */
  sentBy(streams: number[]): number {
    return streams.reduce((sum, id) => sum + (this.bytes.get(id) ?? 0), 0);
  }
  congested(): boolean {
    return this.isCongested;
  }
  whenUncongested(callback: () => void): void {
    this.#waiters.push(callback);
  }
  drain(): void {
    this.isCongested = false;
    for (const waiter of this.#waiters.splice(0)) waiter();
  }
  waitFor(match: (m: AgentMessage) => boolean, what: string): Promise<AgentMessage> {
    return waitUntil(() => this.messages.find(match), what);
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

let upstream: Server;
let endpoint: Endpoint;
const upstreamClosed: string[] = [];

beforeAll(async () => {
  upstream = createServer(async (req: IncomingMessage, res) => {
    req.on("close", () => upstreamClosed.push(req.url ?? ""));
    if (req.url === "/hang") return res.writeHead(200).write("x");
    if (req.url === "/small") return res.end("ok");
    if (req.url === "/big") return res.writeHead(200).end(Buffer.alloc(1024 * 1024));
    if (req.url === "/bigger") return res.writeHead(200).end(Buffer.alloc(2 * INITIAL_WINDOW_BYTES));
    const hash = createHash("sha256");
    for await (const chunk of req) hash.update(chunk as Buffer);
    res.writeHead(200).end(hash.digest("hex"));
  });
  const wss = new WebSocketServer({ server: upstream });
  wss.on("connection", (ws) => {
    ws.on("close", () => upstreamClosed.push("ws"));
    ws.on("message", (data) => {
      if (data.toString() === "big") ws.send(Buffer.alloc(MAX_WS_MESSAGE_BYTES + 1));
    });
  });
  endpoint = await listenOnLoopback(upstream);
});
afterAll(() => shutServer(upstream));

function setUp(resolvePort: () => Promise<Endpoint | null> = async () => endpoint) {
  const transport = new RecordingTransport();
  const streams = new ProxyStreams({ resolvePort, logs: async () => null, exec: async () => null }, transport, createLogger(() => {}));
  return { transport, streams };
}

const httpRequest = (stream: number, path: string, hasBody = false): HttpRequestMessage => ({
  type: "http_request",
  stream,
  instance_id: ID,
  port: 8000,
  method: hasBody ? "POST" : "GET",
  path,
  headers: [],
  has_body: hasBody,
});

describe("proxy streams", () => {
  it("tears down every upstream HTTP and WebSocket connection when the MachineDO connection drops", async () => {
    const { transport, streams } = setUp();
    streams.open(httpRequest(1, "/hang"));
    streams.open({ type: "ws_open", stream: 2, instance_id: ID, port: 8000, path: "/ws", headers: [], protocols: [] });
    await transport.waitFor((m) => m.type === "http_response", "response head");
    await transport.waitFor((m) => m.type === "ws_accepted", "ws accepted");
    expect(streams.openCount).toBe(2);
    streams.closeAll();
    expect(streams.openCount).toBe(0);
    await waitUntil(() => (upstreamClosed.includes("/hang") && upstreamClosed.includes("ws") ? true : undefined), "upstream sockets closed");
  });

  it("keeps body frames that arrive before the container port is resolved", async () => {
    let resolve: (e: Endpoint) => void = () => {};
    const { transport, streams } = setUp(() => new Promise((r) => (resolve = r)));
    const body = Buffer.from("early body");
    streams.open(httpRequest(3, "/hash", true));
    streams.receiveData({ kind: DataKind.body, stream: 3, payload: body });
    streams.receive({ type: "end", stream: 3 });
    resolve(endpoint);
    await transport.waitFor((m) => m.type === "end", "end");
    expect(transport.bytes.get(3)).toBe(64);
  });

  it("releases each body frame's message once the upstream has taken it, the bytes intact and their credit returned whole", async () => {
    const { transport, streams } = setUp();
    const messages = [1, 2, 3, 4, 5, 6, 7, 8].map((fill) => Buffer.alloc(DATA_HEADER_BYTES + 128 * 1024, fill));
    streams.open(httpRequest(4, "/hash", true));
    for (const message of messages) streams.receiveData({ kind: DataKind.body, stream: 4, payload: message.subarray(DATA_HEADER_BYTES) });
    streams.receive({ type: "end", stream: 4 });
    await transport.waitFor((m) => m.type === "end" && m.stream === 4, "end");
    const expected = createHash("sha256");
    for (const fill of [1, 2, 3, 4, 5, 6, 7, 8]) expected.update(Buffer.alloc(128 * 1024, fill));
    expect(Buffer.concat(transport.data.get(4)!).toString()).toBe(expected.digest("hex"));
    expect(messages.every((message) => message.buffer.detached)).toBe(true);
    const credit = transport.messages.flatMap((m) => (m.type === "window" && m.stream === 4 ? [m.bytes] : []));
    expect(credit.reduce((sum, bytes) => sum + bytes, 0)).toBe(1024 * 1024);
  });

  it("holds response data while the socket is congested and sends it once drained", async () => {
    const { transport, streams } = setUp();
    transport.isCongested = true;
    streams.open(httpRequest(4, "/big"));
    await transport.waitFor((m) => m.type === "http_response", "head");
    await new Promise((r) => setTimeout(r, 50));
    expect(transport.bytes.get(4)).toBeUndefined();
    transport.drain();
    await transport.waitFor((m) => m.type === "end", "end");
    expect(transport.bytes.get(4)).toBe(1024 * 1024);
  });

  it("closes a WebSocket with 1009 when an upstream message is over the message limit (one window)", async () => {
    const { transport, streams } = setUp();
    streams.open({ type: "ws_open", stream: 5, instance_id: ID, port: 8000, path: "/ws", headers: [], protocols: [] });
    await transport.waitFor((m) => m.type === "ws_accepted", "accepted");
    streams.receiveData({ kind: DataKind.wsText, stream: 5, payload: Buffer.from("big") });
    expect(await transport.waitFor((m) => m.type === "ws_close", "close")).toEqual({ type: "ws_close", stream: 5, code: 1009, reason: "message too big for the proxy" });
  });

  it("aborts a stream whose peer sends more than the window it was granted", async () => {
    const { transport, streams } = setUp();
    streams.open(httpRequest(6, "/hash", true));
    const chunk = Buffer.alloc(MAX_DATA_FRAME_BYTES);
    for (let sent = 0; sent <= INITIAL_WINDOW_BYTES; sent += chunk.byteLength) streams.receiveData({ kind: DataKind.body, stream: 6, payload: chunk });
    expect(await transport.waitFor((m) => m.type === "abort", "abort")).toEqual({ type: "abort", stream: 6, reason: "request body exceeded the flow-control window" });
  });

  it("aborts with upstream_unavailable when the container port is unknown", async () => {
    const { transport, streams } = setUp(async () => null);
    streams.open(httpRequest(7, "/x"));
    expect(await transport.waitFor((m) => m.type === "abort", "abort")).toEqual({ type: "abort", stream: 7, reason: "upstream_unavailable" });
    expect(streams.openCount).toBe(0);
  });

  it("holds an instance's streams whose clients sit to its share and limit, lets its new streams and other instances' go on, and gives room back to waiting streams first", async () => {
    const { transport, streams } = setUp();
    // As the MachineDO says in its welcome: a reply sent whole is counted until it has been read.
    streams.serverSettles(true);
    const sending = (ids: number[], bytes: number, what: string) => waitUntil(() => (transport.sentBy(ids) >= bytes ? true : undefined), what);
    const settled = () => new Promise((resolve) => setTimeout(resolve, 50));
    // Six downloads whose clients read nothing, a window each (24 MiB): the instance's share is 16.
    const sitting = [20, 21, 22, 23, 24, 25];
    for (const id of sitting) streams.open(httpRequest(id, "/bigger"));
    await sending(sitting, INSTANCE_SHARE_BYTES, "the instance's share sent");
    await settled();
    // Held short of their windows: past the share, a stream sends only its first megabyte or so.
    expect(transport.sentBy(sitting)).toBeLessThan(sitting.length * INITIAL_WINDOW_BYTES);
    // Another instance's stream sends its whole window; a new stream of this one its first megabyte, here its whole body.
    streams.open({ ...httpRequest(26, "/bigger"), instance_id: "i-proxystreamsother" });
    streams.open(httpRequest(27, "/big"));
    await sending([26], INITIAL_WINDOW_BYTES, "the other instance's window");
    await transport.waitFor((m) => m.type === "end" && m.stream === 27, "the new stream's whole body");
    expect(transport.sentBy([27])).toBe(1024 * 1024);
    // More new streams take the instance to its limit; those past it send nothing.
    const late = Array.from({ length: 12 }, (_, n) => 30 + n);
    for (const id of late) streams.open(httpRequest(id, "/bigger"));
    await sending([...sitting, 27, ...late], INSTANCE_LIMIT_BYTES, "the instance's limit sent");
    await settled();
    expect(transport.sentBy([...sitting, 27, ...late])).toBeLessThanOrEqual(INSTANCE_LIMIT_BYTES + MAX_DATA_FRAME_BYTES);
    expect(late.filter((id) => transport.sentBy([id]) === 0).length).toBeGreaterThan(0);
    // A sitting client reads a megabyte: the new streams waiting send; the stream whose window came
    // back has its megabyte out past the share, so it does not.
    const before = transport.sentBy([20]);
    const lateBefore = transport.sentBy(late);
    streams.receive({ type: "window", stream: 20, bytes: 1024 * 1024 });
    await sending(late, lateBefore + 1, "a waiting stream sending");
    expect(transport.sentBy([20])).toBe(before);
    // The MachineDO done with the reply it held whole (its client read it): they send again.
    const lateThen = transport.sentBy(late);
    streams.receive({ type: "window", stream: 27, bytes: 1024 * 1024 });
    await sending(late, lateThen + 1, "the waiting streams sending again");
    streams.closeAll();
  });

  it("gives an instance its room back at once when the MachineDO aborts its streams, though it settles streams", async () => {
    const { transport, streams } = setUp();
    streams.serverSettles(true);
    const aborted = [40, 41, 42, 43, 44, 45];
    for (const id of aborted) streams.open(httpRequest(id, "/bigger"));
    await waitUntil(() => (transport.sentBy(aborted) >= INSTANCE_SHARE_BYTES ? true : undefined), "the instance's share sent");
    for (const id of aborted) streams.receive({ type: "abort", stream: id, reason: "client went away" });
    streams.open(httpRequest(46, "/bigger"));
    await waitUntil(() => (transport.sentBy([46]) === INITIAL_WINDOW_BYTES ? true : undefined), "a whole window sent by the next stream");
    streams.closeAll();
  });
});

describe("small responses whole", () => {
  const request = (stream: number, path: string, method = "GET"): HttpRequestMessage => ({ ...httpRequest(stream, path), method });
  const ofStream = (transport: RecordingTransport, stream: number) => transport.messages.filter((m) => "stream" in m && m.stream === stream);

  it("the welcome says which: response frames where it offers them, else an http_response with the body, else none", () => {
    const welcome = { type: "welcome", protocol: 1, machine_id: 1, heartbeat_ms: 1000 } as const;
    expect(wholeResponsesOf({ ...welcome, whole_responses: true, response_frames: true })).toBe("frame");
    expect(wholeResponsesOf({ ...welcome, whole_responses: true })).toBe("message");
    expect(wholeResponsesOf(welcome)).toBeNull();
  });

  it("to a MachineDO that takes response frames, a response with a small Content-Length is one frame: its status, headers and bytes", async () => {
    const { transport, streams } = setUp();
    streams.serverTakesWholeResponses("frame");
    streams.open(request(5, "/small"));
    streams.open(request(6, "/small", "HEAD"));
    await waitUntil(() => transport.frames.length === 2 || undefined, "both frames");
    const [small, head] = [5, 6].map((stream) => transport.frames.find((frame) => frame.stream === stream)!);
    expect(small).toMatchObject({ status: 200, body: new Uint8Array(Buffer.from("ok")) });
    expect(JSON.parse(small!.head)).toContainEqual(["Content-Length", "2"]);
    expect(head!.body.byteLength).toBe(0);
    expect(ofStream(transport, 5)).toEqual([]);
    expect(transport.bytes.get(5)).toBeUndefined();
    expect(streams.openCount).toBe(0);
  });

  it("to a MachineDO that takes them as messages (an older one), a response with a small Content-Length is one message, its body in it", async () => {
    const { transport, streams } = setUp();
    streams.serverTakesWholeResponses("message");
    streams.open(request(1, "/small"));
    await transport.waitFor((m) => m.type === "http_response", "response");
    await new Promise((r) => setTimeout(r, 50));
    expect(ofStream(transport, 1)).toEqual([{ type: "http_response", stream: 1, status: 200, headers: expect.any(Array), body: Buffer.from("ok").toString("base64") }]);
    expect(transport.bytes.get(1)).toBeUndefined();
    expect(streams.openCount).toBe(0);
  });

  it("a HEAD is whole with an empty body; a chunked body goes as data frames and end", async () => {
    const { transport, streams } = setUp();
    streams.serverTakesWholeResponses("message");
    streams.open(request(2, "/small", "HEAD"));
    streams.open(request(3, "/hash"));
    await transport.waitFor((m) => m.type === "end" && m.stream === 3, "the chunked body's end");
    await waitUntil(() => ofStream(transport, 2)[0], "the HEAD's answer");
    expect(ofStream(transport, 2)).toEqual([{ type: "http_response", stream: 2, status: 200, headers: expect.any(Array), body: "" }]);
    expect(ofStream(transport, 3).map((m) => m.type)).toEqual(["http_response", "end"]);
    expect(ofStream(transport, 3)[0]).not.toHaveProperty("body");
    expect(transport.bytes.get(3)).toBe(64);
  });

  it("to a MachineDO that does not say it takes them (an older one), the head, data and end as before", async () => {
    const { transport, streams } = setUp();
    streams.open(request(4, "/small"));
    await transport.waitFor((m) => m.type === "end" && m.stream === 4, "end");
    expect(ofStream(transport, 4).map((m) => m.type)).toEqual(["http_response", "end"]);
    expect(ofStream(transport, 4)[0]).not.toHaveProperty("body");
    expect(transport.bytes.get(4)).toBe(2);
  });
});

// A kept-alive connection to a container's port that the server closes just as the agent sends the
// next request on it (a server's idle timeout, 5 s in Node's http and in uvicorn, racing the
// request): a request that may be sent again is sent again on a new connection, and the client gets
// its answer, not a 502. The server here closes a connection as its second request arrives, so the
// race is won every time.
describe("a kept-alive upstream connection closed as a request is sent on it", () => {
  const connections: Socket[] = [];
  let requestsSeen = 0;
  const server = createTcpServer((socket) => {
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
  let closing: Endpoint;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    closing = { host: "127.0.0.1", port: address.port };
  });
  afterAll(() => {
    for (const socket of connections) socket.destroy();
    server.close();
  });

  function setUpClosing() {
    const { transport, streams } = setUp(async () => closing);
    streams.serverTakesWholeResponses("frame");
    return { transport, streams };
  }

  const request = (stream: number, method: string, hasBody = false): HttpRequestMessage => ({ ...httpRequest(stream, `/${stream}`, hasBody), method });

  /** Stream `first` answered on a new connection, whose socket is then back in the agent's pool. */
  async function kept(transport: RecordingTransport, streams: ProxyStreams, first: number): Promise<void> {
    streams.open(request(first, "GET"));
    expect(await transport.answerOf(first)).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
  }

  it("a request that may be sent again is sent on a new connection, once, and answered", async () => {
    const { transport, streams } = setUpClosing();
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
    const { transport, streams } = setUpClosing();
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
