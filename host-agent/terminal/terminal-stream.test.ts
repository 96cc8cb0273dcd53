// The terminal stream of the agent's multiplexer, in-process over a real local runtime's shell: typed
// keystrokes run, a resize changes what `stty size` says, output waits for credit, the shell's exit
// closes the WebSocket with its status after its last output, and a container not running is refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentMessage } from "../../protocol/messages.ts";
import { INITIAL_WINDOW_BYTES } from "../../protocol/mux/flow-control.ts";
import { DataKind, MAX_DATA_FRAME_BYTES } from "../../protocol/mux/frames.ts";
import { NODE_BINARY } from "../../test/support/agent/node-binary.ts";
import { testSpec } from "../../test/support/agent/specs.ts";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { waitUntil } from "../../test/support/agent/wait-until.ts";
import { createLogger } from "../log.ts";
import { LocalRuntime } from "../dev/local-runtime.ts";
import { ProxyStreams } from "../proxy/proxy-streams.ts";
import type { StreamTransport } from "../proxy/stream-transport.ts";
import { resizeOf } from "./terminal-stream.ts";

const RUNNING = "i-terminalstreamaa";
const STOPPED = "i-terminalstreambb";
const STOPPING = "i-terminalstreamcc";

class RecordingTransport implements StreamTransport {
  readonly messages: AgentMessage[] = [];
  readonly output = new Map<number, Buffer[]>();
  send(message: AgentMessage): void {
    this.messages.push(message);
  }
  sendFrame(): void {
    expect.fail("only a proxied HTTP response is sent as a response frame");
  }
  sendData(kind: DataKind, stream: number, payload: Uint8Array): void {
    expect(kind).toBe(DataKind.wsBinary);
    this.output.set(stream, [...(this.output.get(stream) ?? []), Buffer.from(payload)]);
  }
  congested(): boolean {
    return false;
  }
  whenUncongested(callback: () => void): void {
    callback();
  }
  text(stream: number): string {
    return Buffer.concat(this.output.get(stream) ?? []).toString();
  }
  bytes(stream: number): number {
    return (this.output.get(stream) ?? []).reduce((sum, chunk) => sum + chunk.byteLength, 0);
  }
  of(stream: number): AgentMessage[] {
    return this.messages.filter((m) => "stream" in m && m.stream === stream);
  }
}

const stateDir = useTempDir("terminal-stream-");
let runtime: LocalRuntime;
let transport: RecordingTransport;
let streams: ProxyStreams;
let nextStream = 1;

beforeAll(async () => {
  runtime = new LocalRuntime({ stateDir: stateDir.path, readyDelayMs: 0, pullMs: 0, nodePath: NODE_BINARY });
  await runtime.create(testSpec(RUNNING), () => {});
  await runtime.start(RUNNING);
  await runtime.create(testSpec(STOPPED), () => {});
  await runtime.create(testSpec(STOPPING), () => {});
  await runtime.start(STOPPING);
  transport = new RecordingTransport();
  streams = new ProxyStreams(runtime, transport, createLogger(() => {}));
});

afterAll(async () => {
  await runtime.destroy(RUNNING);
  await runtime.destroy(STOPPED);
  await runtime.destroy(STOPPING);
});

async function openTerminal(instanceId = RUNNING, cols = 80, rows = 24): Promise<number> {
  const stream = nextStream++;
  streams.openTerminal({ type: "terminal_open", stream, instance_id: instanceId, cols, rows });
  const answer = await waitUntil(() => transport.of(stream).find((m) => m.type === "ws_accepted" || m.type === "abort"), "the terminal's answer");
  // Typing starts at the shell's prompt, as the dashboard's terminal does: a shell setting up its
  // terminal may drop what was typed before (a loaded run lost an `echo $$` typed at once).
  if (answer.type === "ws_accepted") await waitUntil(() => (transport.bytes(stream) > 0 ? true : undefined), "the shell's prompt");
  return stream;
}

const type = (stream: number, text: string) => streams.receiveData({ kind: DataKind.wsText, stream, payload: Buffer.from(text) });
const until = (stream: number, pattern: RegExp) => waitUntil(() => (pattern.test(transport.text(stream)) ? true : undefined), `output matching ${pattern}`);
const closeOf = (stream: number) => transport.of(stream).find((m) => m.type === "ws_close");

describe("the terminal stream", () => {
  it("runs what is typed in a shell on a terminal of the asked size, follows a resize, and closes with the exit status", async () => {
    const stream = await openTerminal(RUNNING, 91, 27);
    expect(transport.of(stream)[0]).toEqual({ type: "ws_accepted", stream, protocol: "" });
    type(stream, "echo typed-$((6*7)); stty size\n");
    await until(stream, /typed-42[\s\S]*27 91/);
    type(stream, JSON.stringify({ type: "resize", cols: 120, rows: 40 }));
    // The terminal is resized as the shell reads on: ask until it says so.
    for (let i = 0; i < 25 && !/40 120/.test(transport.text(stream)); i++) {
      type(stream, "stty size\n");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(transport.text(stream)).toMatch(/40 120/);
    type(stream, "exit 3\n");
    await waitUntil(() => closeOf(stream), "the close");
    expect(closeOf(stream)).toEqual({ type: "ws_close", stream, code: 1000, reason: "the shell exited with status 3" });
    expect(streams.openCount).toBe(0);
  });

  it("sends output only within the MachineDO's credit, and the rest once credit comes back", async () => {
    const stream = await openTerminal();
    type(stream, `head -c ${3 * INITIAL_WINDOW_BYTES} /dev/zero | tr '\\0' x; echo; echo done-sending\n`);
    await waitUntil(() => (transport.bytes(stream) >= INITIAL_WINDOW_BYTES - MAX_DATA_FRAME_BYTES ? true : undefined), "a window of output");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(transport.bytes(stream)).toBeLessThanOrEqual(INITIAL_WINDOW_BYTES);
    for (let i = 0; i < 8 && !/done-sending/.test(transport.text(stream)); i++) {
      streams.receive({ type: "window", stream, bytes: INITIAL_WINDOW_BYTES });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await until(stream, /done-sending/);
    streams.receive({ type: "window", stream, bytes: 16 * INITIAL_WINDOW_BYTES });
    type(stream, "exit\n");
    await waitUntil(() => closeOf(stream), "the close");
  });

  it("a container that is not running is refused, and the stream is forgotten", async () => {
    const stream = await openTerminal(STOPPED);
    expect(transport.of(stream)).toEqual([{ type: "abort", stream, reason: "upstream_unavailable" }]);
    expect(streams.openCount).toBe(0);
  });

  it("the browser closing its terminal ends the shell", async () => {
    const stream = await openTerminal();
    type(stream, "echo $$\n");
    await until(stream, /^\d+\s*$/m);
    streams.receive({ type: "ws_close", stream, code: 1000, reason: "" });
    expect(closeOf(stream)).toEqual({ type: "ws_close", stream, code: 1000, reason: "terminal closed" });
    expect(streams.openCount).toBe(0);
  });
});

describe("the container going away", () => {
  it("stopping the instance ends its terminal with a close, not a hang", async () => {
    const stream = await openTerminal(STOPPING);
    type(stream, "echo $$\n");
    await until(stream, /^\d+\s*$/m);
    await runtime.stop(STOPPING);
    await waitUntil(() => closeOf(stream), "the close");
    expect(closeOf(stream)).toMatchObject({ type: "ws_close", stream, code: 1000, reason: expect.stringMatching(/^the shell (ended|exited with status \d+)$/) });
    expect(streams.openCount).toBe(0);
  });
});

describe("resize messages", () => {
  it.each([
    ['{"type":"resize","cols":100,"rows":30}', { cols: 100, rows: 30 }],
    ['{"type":"resize","cols":0,"rows":30}', null],
    ['{"type":"resize","cols":1001,"rows":30}', null],
    ['{"type":"resize","cols":1.5,"rows":30}', null],
    ['{"type":"other","cols":80,"rows":24}', null],
    ["{", null],
    ["ls\n", null],
  ])("%s → %j", (text, size) => {
    expect(resizeOf(Buffer.from(text))).toEqual(size);
  });
});
