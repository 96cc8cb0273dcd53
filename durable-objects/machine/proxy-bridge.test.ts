// The proxy bridge's stream bookkeeping, with a socket that records what the bridge sends.
import { describe, expect, it, onTestFinished, vi } from "vitest";
import type { LogFields } from "../../core/log.ts";
import { DATA_HEADER_BYTES, DataKind, encodeDataFrame, encodeResponseFrame, INITIAL_WINDOW_BYTES, MAX_DATA_FRAME_BYTES } from "../../protocol/index.ts";
import { until } from "../../test/support/workerd/poll.ts";
import type { ProxyTarget } from "../contracts/proxy-request.ts";
import { clientResponseOf, UPSTREAM_HEAD_HEADER } from "../contracts/upstream-answer.ts";
import { ACCOUNT_READ_BUFFER_BYTES, SMALL_READ_BYTES } from "./body-reads.ts";
import { LOGS_ANSWER_TIMEOUT_MS, ProxyBridge } from "./proxy-bridge.ts";
import { STREAMS_PER_ACCOUNT, STREAMS_PER_INSTANCE, type StreamOwner } from "./stream-quota.ts";

const target: ProxyTarget = { instanceId: "i-aaaaaaaaaaaaaaaa", port: 8000, target: "/x?y=1", method: "GET", headers: [] };
const owner: StreamOwner = { instanceId: target.instanceId, accountId: "a-test" };
/** Who opened the log streams (the bridge takes it from the owner; the request carries it to the MachineDO). */
const opener = { kind: "key", key_sha256: "ab".repeat(32) } as const;
const MiB = 1024 * 1024;

function recordingSocket() {
  const sent: (string | Uint8Array)[] = [];
  // A socket copies what it is sent, as workerd's does: the bridge releases a frame's buffer once sent (protocol/mux/buffer-release.ts).
  const socket = { send: (data: string | Uint8Array) => sent.push(typeof data === "string" ? data : data.slice()) } as unknown as WebSocket;
  return { socket, sent, controls: () => sent.filter((m): m is string => typeof m === "string").map((m) => JSON.parse(m)) };
}

/** A bridge over a recording socket with one HTTP exchange for `target` open, and the agent's side of it. */
function openExchange(logIds?: () => LogFields) {
  const { socket, controls } = recordingSocket();
  const bridge = new ProxyBridge(() => socket);
  const pending = bridge.openHttp(target, owner, null, logIds);
  const [request] = controls();
  const stream: number = request.stream;
  return {
    bridge, controls, pending, request, stream,
    /** The agent answers with status 200 and `headers`; the client's response. */
    answer(headers: [string, string][] = []): Promise<Response> {
      bridge.onMessage({ type: "http_response", stream, status: 200, headers });
      return pending;
    },
    /** The agent sends a piece of the response body. */
    body(bytes: string | Uint8Array): void {
      bridge.onBinary(encodeDataFrame(DataKind.body, stream, typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes));
    },
  };
}

/** The log lines written through `console[method]` during this test, parsed; nothing reaches the console. */
function capturedLog(method: "warn" | "log"): () => unknown[] {
  const spy = vi.spyOn(console, method).mockImplementation(() => undefined);
  onTestFinished(() => spy.mockRestore());
  return () => spy.mock.calls.map(([line]) => JSON.parse(String(line)));
}

describe("ProxyBridge", () => {
  it("with no agent socket a request is 502 upstream_unavailable at once", async () => {
    const bridge = new ProxyBridge(() => null);
    const response = await bridge.openHttp(target, owner, null);
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: "upstream_unavailable" });
  });

  it("streams a response and frees the stream when it ends", async () => {
    const { bridge, request, stream, answer, body } = openExchange();
    expect(request).toMatchObject({ type: "http_request", path: "/x?y=1", has_body: false });
    const answered = await answer([["set-cookie", "a=1"], ["set-cookie", "b=2"], ["connection", "close"]]);
    // The upstream's headers go to the Worker as they came, which builds the client's.
    expect(JSON.parse(answered.headers.get(UPSTREAM_HEAD_HEADER)!)).toEqual([["set-cookie", "a=1"], ["set-cookie", "b=2"], ["connection", "close"]]);
    const response = clientResponseOf(answered, "req_x");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(response.headers.get("connection")).toBeNull();
    expect(response.headers.get("x-request-id")).toBe("req_x");
    body("hello");
    bridge.onMessage({ type: "end", stream });
    expect(await response.text()).toBe("hello");
    await until(async () => bridge.openStreams, (n) => n === 0, "the stream to be freed");
  });

  it("when the agent goes away mid-body an event stream ends where it is, with one warning naming the request", async () => {
    const warnings = capturedLog("warn");
    const { bridge, stream, answer, body } = openExchange(() => ({ request_id: "req_a", account_id: "acc-aaaaaaaaaaaaaaaa", instance_id: target.instanceId, machine_id: 1 }));
    const response = await answer([["content-type", "text/event-stream"]]);
    body("data: 1\n\n");
    expect(bridge.openStreams).toBe(1);
    bridge.abortAll();
    expect(bridge.openStreams).toBe(0);
    // Its events are whole by themselves: it ends rather than breaks.
    expect(await response.text()).toBe("data: 1\n\n");
    expect(warnings()).toEqual([{
      level: "warn", msg: "proxied response cut short: the host disconnected", stream: "http",
      request_id: "req_a", account_id: "acc-aaaaaaaaaaaaaaaa", instance_id: target.instanceId, machine_id: 1, stream_id: stream,
    }]);
  });

  it("when the agent goes away before the head the client gets 502, with one warning", async () => {
    const warnings = capturedLog("warn");
    const { bridge, pending } = openExchange(() => ({ request_id: "req_b" }));
    bridge.abortAll();
    const response = await pending;
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ error: "upstream_unavailable", message: "the upstream failed: the host disconnected" });
    expect(warnings()).toEqual([
      { level: "warn", msg: "proxied request failed: the host disconnected", stream: "http", request_id: "req_b", stream_id: 1 },
    ]);
  });

  it("when the agent goes away mid-download the client's read fails: a cut body is never taken for a whole one", async () => {
    const warnings = capturedLog("warn");
    const { bridge, answer, body } = openExchange(() => ({ request_id: "req_d" }));
    const response = await answer([["content-type", "application/octet-stream"]]);
    body(new Uint8Array(1024));
    bridge.abortAll();
    await expect(response.arrayBuffer()).rejects.toThrow("response cut short: the host disconnected");
    expect(warnings()).toHaveLength(1);
    expect(bridge.openStreams).toBe(0);
  });

  it("an upstream failure mid-body breaks the body off, with one warning and the agent's reason", async () => {
    const warnings = capturedLog("warn");
    const { bridge, stream, answer, body } = openExchange(() => ({ request_id: "req_c" }));
    const response = await answer();
    body("partial");
    bridge.onMessage({ type: "abort", stream, reason: "upstream closed the connection" });
    await expect(response.text()).rejects.toThrow("response cut short: the upstream failed");
    expect(warnings()).toEqual([{
      level: "warn", msg: "proxied response cut short: the upstream failed", stream: "http", request_id: "req_c",
      stream_id: stream, reason: "upstream closed the connection",
    }]);
    expect(bridge.openStreams).toBe(0);
  });

  it("a client that stops reading and cancels is logged once as leaving, and the agent is told", async () => {
    const infos = capturedLog("log");
    const { bridge, controls, stream, answer, body } = openExchange(() => ({ request_id: "req_d" }));
    await (await answer()).body!.cancel();
    body(new Uint8Array(10));
    await until(async () => controls().find((m) => m.type === "abort"), (abort) => abort !== undefined, "the abort");
    expect(infos()).toEqual([
      { level: "info", msg: "client left before the response ended", stream: "http", request_id: "req_d", stream_id: stream },
    ]);
    expect(bridge.openStreams).toBe(0);
  });

  it("keeps the upstream's Content-Length, and a body ending short of it is an error", async () => {
    const { bridge, stream, answer, body } = openExchange();
    const response = clientResponseOf(await answer([["content-length", "10"]]), "req_x");
    expect(response.headers.get("content-length")).toBe("10");
    body(new Uint8Array(4));
    bridge.onMessage({ type: "end", stream });
    await expect(response.arrayBuffer()).rejects.toThrow();
  });

  it("returns credit as the client reads, never before", async () => {
    const { bridge, controls, answer, body } = openExchange();
    const reader = (await answer()).body!.getReader();
    for (let i = 0; i < 8; i++) body(new Uint8Array(256 * 1024));
    expect(controls().filter((m) => m.type === "window")).toEqual([]);
    let read = 0;
    while (read < 1024 * 1024 + 300 * 1024) read += (await reader.read()).value!.byteLength;
    const windows = await until(async () => controls().filter((m) => m.type === "window"), (w) => w.length > 0, "credit");
    const credited = windows.reduce((sum, w) => sum + (w.bytes as number), 0);
    expect(credited).toBeGreaterThanOrEqual(1024 * 1024);
    expect(credited).toBeLessThanOrEqual(read);
    await reader.cancel();
    await until(async () => controls().find((m) => m.type === "abort"), (abort) => abort !== undefined, "the abort");
    expect(bridge.openStreams).toBe(0);
  });

  it("releases each frame of a download once the client's stream has taken it, the bytes intact and their credit returned whole", async () => {
    const { bridge, controls, answer, stream } = openExchange();
    const reader = (await answer()).body!.getReader();
    const frames = [1, 2, 3, 4].map((fill) => encodeDataFrame(DataKind.body, stream, new Uint8Array(256 * 1024).fill(fill)));
    for (const frame of frames) bridge.onBinary(frame);
    const read: number[] = [];
    while (read.length < MiB) read.push(...(await reader.read()).value!);
    expect(read).toEqual([1, 2, 3, 4].flatMap((fill) => Array<number>(256 * 1024).fill(fill)));
    await until(async () => frames.filter((frame) => (frame.buffer as ArrayBuffer).detached).length, (n) => n === frames.length, "every frame released");
    const windows = await until(async () => controls().filter((m) => m.type === "window"), (w) => w.length === 2, "credit");
    expect(windows.reduce((sum, w) => sum + (w.bytes as number), 0)).toBe(MiB);
  });

  it("opens a logs stream like a GET: logs_open, then the agent's response relayed", async () => {
    const { socket, controls } = recordingSocket();
    const bridge = new ProxyBridge(() => socket);
    const pending = bridge.openLogs({ instanceId: "i-aaaaaaaaaaaaaaaa", tail: 7, follow: true, format: "events", requestId: "", opener }, owner);
    const [open] = controls();
    expect(open).toEqual({ type: "logs_open", stream: expect.any(Number), instance_id: "i-aaaaaaaaaaaaaaaa", tail: 7, follow: true, format: "events" });
    bridge.onMessage({ type: "http_response", stream: open.stream, status: 200, headers: [["content-type", "text/event-stream"]] });
    bridge.onBinary(encodeDataFrame(DataKind.body, open.stream, new TextEncoder().encode("data: {}\n\n")));
    bridge.onMessage({ type: "end", stream: open.stream });
    expect(await (await pending).text()).toBe("data: {}\n\n");
    await until(async () => bridge.openStreams, (n) => n === 0, "the stream to be freed");
  });

  it("an agent that never answers a logs request (one from before logs) gets it given up: 502 and an abort", async () => {
    vi.useFakeTimers();
    try {
      const { socket, controls } = recordingSocket();
      const bridge = new ProxyBridge(() => socket);
      const pending = bridge.openLogs({ instanceId: "i-aaaaaaaaaaaaaaaa", tail: 1, follow: false, format: "text", requestId: "", opener }, owner);
      vi.advanceTimersByTime(LOGS_ANSWER_TIMEOUT_MS);
      const response = await pending;
      expect(response.status).toBe(502);
      expect(await response.json()).toEqual({ error: "upstream_unavailable", message: "the upstream failed: the host's agent did not answer in time" });
      expect(controls().at(-1)).toMatchObject({ type: "abort", reason: "no answer from the host" });
      expect(bridge.openStreams).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a malformed data frame is reported, not thrown", () => {
    const bridge = new ProxyBridge(() => null);
    expect(bridge.onBinary(new Uint8Array([1, 0]))).toMatch(/shorter/);
    expect(bridge.onBinary(new Uint8Array([9, 0, 0, 0, 1]))).toMatch(/unknown/);
  });

  it("a malformed response frame is reported and fails its own stream with a 502; one for no open stream is dropped", async () => {
    const { bridge, pending, stream } = openExchange();
    expect(bridge.onBinary(encodeResponseFrame(stream + 1, 200, "[]", new Uint8Array(1)))).toBeNull();
    expect(bridge.onBinary(encodeResponseFrame(stream, 200, "[]", new Uint8Array(1)).subarray(0, 9))).toMatch(/shorter/);
    const response = await pending;
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: "upstream_unavailable", message: expect.stringContaining("malformed") });
    expect(bridge.openStreams).toBe(0);
  });

  it("a response frame after a streamed head ends that body where it is, not left open", async () => {
    const { bridge, stream, answer, body } = openExchange();
    const response = clientResponseOf(await answer([["content-type", "text/plain"]]), "req_x");
    body("part");
    expect(bridge.onBinary(encodeResponseFrame(stream, 200, "[]", new Uint8Array(1)))).toBeNull();
    expect(await response.text()).toBe("part");
    expect(bridge.openStreams).toBe(0);
  });

  it("a response frame on a logs stream, which the agent never answers so, is that stream's 502", async () => {
    const { socket, controls } = recordingSocket();
    const bridge = new ProxyBridge(() => socket);
    const pending = bridge.openLogs({ instanceId: target.instanceId, tail: 10, follow: false, format: "text", requestId: "", opener }, owner);
    const [{ stream }] = controls();
    expect(bridge.onBinary(encodeResponseFrame(stream, 200, "[]", new Uint8Array(1)))).toBeNull();
    expect((await pending).status).toBe(502);
  });
});

describe("ProxyBridge's WebSocket messages", () => {
  it("release each frame's buffer once its message is sent on, either way, the bytes intact", async () => {
    const frames: { sent: Uint8Array; copy: Uint8Array }[] = [];
    const { socket, controls } = recordingSocket();
    const agentSocket = {
      send(data: string | Uint8Array) {
        if (typeof data !== "string") frames.push({ sent: data, copy: data.slice() });
        socket.send(data);
      },
    } as unknown as WebSocket;
    const bridge = new ProxyBridge(() => agentSocket);
    const accepted = bridge.openWebSocket(target, owner, []);
    const [open] = controls();
    bridge.onMessage({ type: "ws_accepted", stream: open.stream, protocol: "" });
    const client = (await accepted).webSocket!;
    client.binaryType = "arraybuffer";
    client.accept();
    const arrived = new Promise<ArrayBuffer>((resolve) => client.addEventListener("message", (event) => resolve(event.data as ArrayBuffer)));

    const fromAgent = encodeDataFrame(DataKind.wsBinary, open.stream, new Uint8Array(64 * 1024).fill(5));
    bridge.onBinary(fromAgent);
    expect((fromAgent.buffer as ArrayBuffer).detached).toBe(true);
    expect(new Uint8Array(await arrived)).toEqual(new Uint8Array(64 * 1024).fill(5));

    client.send(new Uint8Array(64 * 1024).fill(6));
    await until(async () => frames.length, (n) => n === 1, "the client's message sent to the agent");
    expect((frames[0]!.sent.buffer as ArrayBuffer).detached).toBe(true);
    expect(frames[0]!.copy).toEqual(encodeDataFrame(DataKind.wsBinary, open.stream, new Uint8Array(64 * 1024).fill(6)));
  });
});

describe("ProxyBridge's caps on open streams", () => {
  /** Opens `count` HTTP exchanges for `who` on `bridge`, unanswered (as a slow upstream or client holds them). */
  const openMany = (bridge: ProxyBridge, who: StreamOwner, count: number) =>
    Array.from({ length: count }, () => bridge.openHttp({ ...target, instanceId: who.instanceId }, who, null));

  it("refuses an instance's stream beyond its cap with 429 rate_limited and Retry-After, and nothing is sent to the agent for it", async () => {
    const { socket, controls } = recordingSocket();
    const bridge = new ProxyBridge(() => socket);
    openMany(bridge, owner, STREAMS_PER_INSTANCE);
    const sent = controls().length;
    const refused = await bridge.openWebSocket(target, owner, []);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toEqual({ error: "rate_limited", message: expect.stringContaining(`instance ${owner.instanceId} has ${STREAMS_PER_INSTANCE} streams open`) });
    expect((await bridge.openLogs({ instanceId: owner.instanceId, tail: 1, follow: false, format: "text", requestId: "", opener }, owner)).status).toBe(429);
    expect(controls().length).toBe(sent);
    expect(bridge.openStreams).toBe(STREAMS_PER_INSTANCE);
  });

  it("gives the place back when a stream ends, however it ends: answered, or the agent gone", async () => {
    const { socket, controls } = recordingSocket();
    const bridge = new ProxyBridge(() => socket);
    openMany(bridge, owner, STREAMS_PER_INSTANCE);
    const first = controls()[0].stream as number;
    bridge.onMessage({ type: "http_response", stream: first, status: 204, headers: [] });
    bridge.onMessage({ type: "end", stream: first });
    await until(async () => bridge.openStreams, (n) => n === STREAMS_PER_INSTANCE - 1, "the answered stream to end");
    expect(controls().filter((m) => m.type === "http_request").length).toBe(STREAMS_PER_INSTANCE);
    void bridge.openHttp(target, owner, null);
    expect(controls().filter((m) => m.type === "http_request").length).toBe(STREAMS_PER_INSTANCE + 1);
    bridge.abortAll();
    expect(bridge.openStreams).toBe(0);
    void bridge.openHttp(target, owner, null);
    expect(bridge.openStreams).toBe(1);
  });

  it("counts an account's instances on the machine together, and leaves other tenants their own", async () => {
    const { socket } = recordingSocket();
    const bridge = new ProxyBridge(() => socket);
    const instances = ["i-bbbbbbbbbbbbbbbb", "i-cccccccccccccccc"].map((instanceId) => ({ instanceId, accountId: "a-busy" }));
    for (const who of instances) openMany(bridge, who, STREAMS_PER_ACCOUNT / 2);
    const third = { instanceId: "i-dddddddddddddddd", accountId: "a-busy" };
    const refused = await bridge.openHttp({ ...target, instanceId: third.instanceId }, third, null);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: "rate_limited", message: expect.stringContaining(`have ${STREAMS_PER_ACCOUNT} streams open, the most one account may`) });
    const neighbour = { instanceId: "i-eeeeeeeeeeeeeeee", accountId: "a-neighbour" };
    void bridge.openHttp({ ...target, instanceId: neighbour.instanceId }, neighbour, null);
    expect(bridge.openStreams).toBe(STREAMS_PER_ACCOUNT + 1);
  });
});

describe("ProxyBridge's read buffers for request bodies", () => {
  /** A body of `bytes` that is all there at once: each read fills its buffer. */
  const fastBody = (bytes: number) => new ReadableStream({ type: "bytes", start: (controller) => controller.enqueue(new Uint8Array(bytes)) });

  it("gives an account's bodies its own room: past it they go on in small reads, while another account's step up", async () => {
    const { socket, sent } = recordingSocket();
    const bridge = new ProxyBridge(() => socket);
    const upload = (who: StreamOwner) => {
      void bridge.openHttp({ ...target, method: "POST", instanceId: who.instanceId }, who, fastBody(8 * MiB));
      return sent.findLast((m): m is string => typeof m === "string" && JSON.parse(m).type === "http_request");
    };
    const framesOf = (opening: string | undefined) => {
      const stream = JSON.parse(opening!).stream as number;
      return sent.filter((m): m is Uint8Array => typeof m !== "string" && new DataView(m.buffer, m.byteOffset + 1, 4).getUint32(0) === stream);
    };
    const sentOf = (opening: string | undefined) => framesOf(opening).reduce((n, frame) => n + frame.byteLength - DATA_HEADER_BYTES, 0);
    // Waiting for the agent's credit: what is left of the window is less than a whole frame.
    const waiting = (openings: (string | undefined)[], what: string) =>
      until(async () => openings.map(sentOf), (sentBytes) => sentBytes.every((n) => n > INITIAL_WINDOW_BYTES - MAX_DATA_FRAME_BYTES), what);
    // Four bodies of one account, each holding a whole frame's buffer while it waits for the agent's
    // credit; each to an instance of its own, whose upload budget has room for a whole window.
    const busy = Array.from({ length: ACCOUNT_READ_BUFFER_BYTES / MiB }, (_, i) => upload({ instanceId: `i-read${String(i).padStart(12, "0")}`, accountId: owner.accountId }));
    await waiting(busy, "the account's first four bodies to wait for credit");
    const fifth = upload(owner);
    const neighbour = upload({ instanceId: "i-ffffffffffffffff", accountId: "a-neighbour" });
    await waiting([fifth, neighbour], "the next two bodies to wait for credit");
    const largest = (opening: string | undefined) => Math.max(...framesOf(opening).map((frame) => frame.byteLength - DATA_HEADER_BYTES));
    expect(busy.map(largest)).toEqual(busy.map(() => MAX_DATA_FRAME_BYTES));
    expect(largest(fifth)).toBe(SMALL_READ_BYTES);
    expect(largest(neighbour)).toBe(MAX_DATA_FRAME_BYTES);
  });
});
