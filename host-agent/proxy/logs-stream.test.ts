// Logs streams of the agent's multiplexer, in-process over a real local runtime: the answer as an
// HTTP response (404, plain lines, server-sent events), a follow ending with the container, credit,
// and a stream given up (abort, lost connection) leaving nothing open.
import { join } from "node:path";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentMessage } from "../../protocol/messages.ts";
import { INITIAL_WINDOW_BYTES } from "../../protocol/mux/flow-control.ts";
import { DataKind } from "../../protocol/mux/frames.ts";
import { NODE_BINARY } from "../../test/support/agent/node-binary.ts";
import { testSpec } from "../../test/support/agent/specs.ts";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { healthAnswers, waitUntil } from "../../test/support/agent/wait-until.ts";
import { createLogger } from "../log.ts";
import { LogWriter } from "../dev/local-log-file.ts";
import { LocalRuntime } from "../dev/local-runtime.ts";
import type { LogsOpenMessage } from "./logs-stream.ts";
import { ProxyStreams } from "./proxy-streams.ts";
import type { StreamTransport } from "./stream-transport.ts";

const RUNNING = "i-logsstreamrunnab";
const QUIET = "i-logsstreamquieta";

class RecordingTransport implements StreamTransport {
  readonly messages: AgentMessage[] = [];
  readonly bodies = new Map<number, Buffer[]>();
  send(message: AgentMessage): void {
    this.messages.push(message);
  }
  sendFrame(): void {
    expect.fail("only a proxied HTTP response is sent as a response frame");
  }
  sendData(_kind: DataKind, stream: number, payload: Uint8Array): void {
    this.bodies.set(stream, [...(this.bodies.get(stream) ?? []), Buffer.from(payload)]);
  }
  congested(): boolean {
    return false;
  }
  whenUncongested(callback: () => void): void {
    callback();
  }
  of(stream: number): AgentMessage[] {
    return this.messages.filter((m) => "stream" in m && m.stream === stream);
  }
  body(stream: number): string {
    return Buffer.concat(this.bodies.get(stream) ?? []).toString();
  }
  ended(stream: number): Promise<AgentMessage> {
    return waitUntil(() => this.of(stream).find((m) => m.type === "end" || m.type === "abort"), `end of stream ${stream}`);
  }
}

const stateDir = useTempDir("logs-stream-");
let runtime: LocalRuntime;
let port: number;
/** Every log source the runtime handed out, to check that a stream given up destroyed its own. */
const sources: Readable[] = [];

beforeAll(async () => {
  runtime = new LocalRuntime({ stateDir: stateDir.path, readyDelayMs: 0, pullMs: 0, nodePath: NODE_BINARY });
  await runtime.create(testSpec(RUNNING), () => {});
  await runtime.start(RUNNING);
  port = (await runtime.resolvePort(RUNNING, 8000))!.port;
  await waitUntil(async () => ((await healthAnswers(port)) ? true : undefined), "ready");
  // A stopped container with a long log: more than one flow-control window of it.
  await runtime.create(testSpec(QUIET), () => {});
  const writer = new LogWriter(join(stateDir.path, "containers", QUIET));
  for (let i = 0; i < 10_000; i++) writer.write("stdout", `${String(i).padStart(5, "0")} ${"x".repeat(500)}`);
});
afterAll(() => runtime.close());

function setUp(logKeepAliveMs?: number) {
  const transport = new RecordingTransport();
  const streams = new ProxyStreams(
    {
      resolvePort: (id, p) => runtime.resolvePort(id, p),
      logs: async (id, request) => {
        const source = await runtime.logs(id, request);
        if (source) sources.push(source);
        return source;
      },
      exec: async () => null,
    },
    transport,
    createLogger(() => {}),
    logKeepAliveMs,
  );
  return { transport, streams };
}

const open = (stream: number, instanceId: string, options: Partial<LogsOpenMessage> = {}): LogsOpenMessage => ({
  type: "logs_open", stream, instance_id: instanceId, tail: 200, follow: false, format: "text", ...options,
});

describe("logs streams", () => {
  it("answers 404 and ends for a container the host does not have", async () => {
    const { transport, streams } = setUp();
    streams.openLogs(open(1, "i-nosuchcontainera"));
    await transport.ended(1);
    expect(transport.of(1)).toEqual([{ type: "http_response", stream: 1, status: 404, headers: [] }, { type: "end", stream: 1 }]);
    expect(streams.openCount).toBe(0);
  });

  it("aborts a stream whose log the runtime could not read, or that is sent a body", async () => {
    const transport = new RecordingTransport();
    const streams = new ProxyStreams({ resolvePort: async () => null, logs: async () => Promise.reject(new Error("engine down")), exec: async () => null }, transport, createLogger(() => {}));
    streams.openLogs(open(10, RUNNING));
    expect(await transport.ended(10)).toEqual({ type: "abort", stream: 10, reason: "the host could not read the logs: engine down" });
    const { transport: other, streams: running } = setUp();
    running.openLogs(open(11, RUNNING, { follow: true }));
    running.receiveData({ kind: DataKind.body, stream: 11, payload: new Uint8Array(1) });
    expect(await other.ended(11)).toEqual({ type: "abort", stream: 11, reason: "a logs request takes no body" });
    expect([streams.openCount, running.openCount]).toEqual([0, 0]);
  });

  it("answers the last lines as plain text, or as server-sent events with time and stream", async () => {
    const { transport, streams } = setUp();
    await fetch(`http://127.0.0.1:${port}/missing`);
    await waitUntil(async () => ((await tailText()).endsWith("GET /missing 404\n") ? true : undefined), "the request's line");
    streams.openLogs(open(2, RUNNING, { tail: 2 }));
    await transport.ended(2);
    expect(transport.of(2)[0]).toEqual({ type: "http_response", stream: 2, status: 200, headers: [["content-type", "text/plain; charset=utf-8"], ["cache-control", "no-store"]] });
    expect(transport.body(2)).toMatch(/^[^\n]+\nGET \/missing 404\n$/);

    streams.openLogs(open(3, RUNNING, { tail: 1, format: "events" }));
    await transport.ended(3);
    expect(transport.of(3)[0]).toMatchObject({ status: 200, headers: [["content-type", "text/event-stream"], ["cache-control", "no-store"]] });
    const event = /^data: (.*)\n\n$/.exec(transport.body(3));
    expect(JSON.parse(event![1]!)).toEqual({ t: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), stream: "stderr", line: "GET /missing 404" });
    expect(Object.keys(JSON.parse(event![1]!))).toEqual(["t", "stream", "line"]);
    expect(streams.openCount).toBe(0);
  });

  it("sends no more than the window until credit comes back", async () => {
    const { transport, streams } = setUp();
    streams.openLogs(open(4, QUIET, { tail: 10_000 }));
    await waitUntil(() => (transport.body(4).length >= INITIAL_WINDOW_BYTES ? true : undefined), "a window of log");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(transport.body(4).length).toBe(INITIAL_WINDOW_BYTES);
    streams.receive({ type: "window", stream: 4, bytes: INITIAL_WINDOW_BYTES });
    await transport.ended(4);
    const lines = transport.body(4).trimEnd().split("\n");
    expect(lines).toHaveLength(10_000);
    expect([lines[0]?.slice(0, 5), lines.at(-1)?.slice(0, 5)]).toEqual(["00000", "09999"]);
  });

  it("a client that leaves a follow (abort), or a lost connection, leaves no stream and no log source open", async () => {
    const { transport, streams } = setUp();
    streams.openLogs(open(5, RUNNING, { follow: true, format: "events", tail: 1 }));
    streams.openLogs(open(6, RUNNING, { follow: true, format: "events", tail: 1 }));
    await waitUntil(() => (transport.body(5) && transport.body(6) ? true : undefined), "both tails");
    const [five, six] = sources.slice(-2);
    expect(streams.openCount).toBe(2);
    streams.receive({ type: "abort", stream: 5, reason: "client went away" });
    expect(streams.openCount).toBe(1);
    await waitUntil(() => (five!.destroyed ? true : undefined), "the first follow's source destroyed");
    expect(six!.destroyed).toBe(false);
    streams.closeAll();
    expect(streams.openCount).toBe(0);
    await waitUntil(() => (six!.destroyed ? true : undefined), "the second follow's source destroyed");
    expect(transport.of(5).map((m) => m.type)).toEqual(["http_response"]);
  });

  it("a silent followed log sends keep-alive comments (a client that left is noticed by the next write); plain text gets none", async () => {
    const { transport, streams } = setUp(30);
    streams.openLogs(open(8, RUNNING, { follow: true, format: "events", tail: 1 }));
    streams.openLogs(open(9, RUNNING, { follow: true, format: "text", tail: 1 }));
    await waitUntil(() => (transport.body(8).split(": keep-alive\n\n").length > 3 ? true : undefined), "keep-alive comments");
    expect(transport.body(8)).toMatch(/^data: .*\n\n(: keep-alive\n\n)+$/);
    expect(transport.body(9)).not.toContain("keep-alive");
    streams.closeAll();
  });

  it("a follow gets the lines written after it began and ends when the container stops", async () => {
    const { transport, streams } = setUp();
    streams.openLogs(open(7, RUNNING, { follow: true, tail: 1 }));
    await waitUntil(() => (transport.body(7) ? true : undefined), "the tail");
    await fetch(`http://127.0.0.1:${port}/echo/after`);
    await waitUntil(() => (transport.body(7).includes("GET /echo/after 200\n") ? true : undefined), "the new line");
    await runtime.stop(RUNNING);
    expect(await transport.ended(7)).toEqual({ type: "end", stream: 7 });
    expect(streams.openCount).toBe(0);
  });
});

async function tailText(): Promise<string> {
  const source = await runtime.logs(RUNNING, { tail: 1, follow: false });
  let text = "";
  for await (const entry of source!) text += `${(entry as { line: string }).line}\n`;
  return text;
}
