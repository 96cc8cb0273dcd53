// The multiplexer's contract, one set of tests for both ends: a workerd test runs it against the
// MachineDO's ProxyBridge, a Node test against the agent's ProxyStreams. The suite plays the peer:
// it delivers frames to the end under test and checks what the end sends back, every frame both
// ways passing through the codec.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Decoded } from "../../../protocol/codec.ts";
import type { AgentMessage, ServerMessage } from "../../../protocol/messages.ts";
import { INITIAL_WINDOW_BYTES, WINDOW_UPDATE_THRESHOLD } from "../../../protocol/mux/flow-control.ts";
import { DataKind, MAX_DATA_FRAME_BYTES, type DataFrame } from "../../../protocol/mux/frames.ts";
import type { StreamControl } from "../../../protocol/mux/stream-table.ts";

export type SentFrame = { message: AgentMessage | ServerMessage } | { data: DataFrame };

/** One end of the multiplexer as the suite drives it, with a local side that behaves well. */
export interface MuxEndUnderTest {
  /** Every frame the end sent to its peer, decoded with the codec, in order. */
  readonly sent: SentFrame[];
  /** Frames the end sent that the codec refused: a correct end leaves this empty. */
  readonly protocolErrors: string[];
  /** Calls `listener` as each frame is sent, before anything else happens. */
  onSend(listener: (frame: SentFrame) => void): void;
  /**
   * Opens an HTTP stream and resolves with its id once the end takes data for it: the end sends
   * `sends` bytes of body to the peer and then `end`; with `receives`, body data from the peer
   * reaches the end's local side, which consumes it as it arrives.
   */
  openHttp(options: { sends: number; receives: boolean }): Promise<number>;
  /** Opens a WebSocket stream whose local socket echoes every message back. */
  openWebSocket(): Promise<number>;
  /** The close code and reason the local socket of a WebSocket stream received. */
  localClose(stream: number): Promise<{ code: number; reason: string }>;
  /** A stream frame from the peer. */
  deliver(frame: StreamControl): void;
  /** A data frame from the peer; returns why the end refused it, or null. */
  deliverData(kind: DataKind, stream: number, payload: Uint8Array): string | null;
  /** The connection to the peer is lost. */
  disconnect(): void;
  readonly openStreams: number;
  /** The end returns the rest of a stream's credit as it finishes it (the MachineDO's settles_streams). */
  readonly settlesStreams: boolean;
  /** Ends whatever the end under test still holds. */
  close(): Promise<void>;
}

/** What an end under test keeps of the frames it sends, fed with each frame as the codec decoded it. */
export interface SentFrameLog extends Pick<MuxEndUnderTest, "sent" | "protocolErrors" | "onSend"> {
  message(decoded: Decoded<AgentMessage | ServerMessage>): void;
  data(frame: DataFrame | { error: string }): void;
}

export function sentFrameLog(): SentFrameLog {
  const sent: SentFrame[] = [];
  const protocolErrors: string[] = [];
  const listeners: ((frame: SentFrame) => void)[] = [];
  const record = (frame: SentFrame) => {
    sent.push(frame);
    for (const listener of listeners) listener(frame);
  };
  return {
    sent,
    protocolErrors,
    onSend: (listener) => void listeners.push(listener),
    message: (decoded) => (decoded.ok ? record({ message: decoded.message }) : void protocolErrors.push(decoded.reason)),
    data: (frame) => ("error" in frame ? void protocolErrors.push(frame.error) : record({ data: frame })),
  };
}

export function runMuxContract(name: string, create: () => Promise<MuxEndUnderTest>): void {
  describe(`multiplexer contract: ${name}`, () => {
    let end: MuxEndUnderTest;
    beforeEach(async () => {
      end = await create();
    });
    afterEach(async () => {
      await end.close();
      expect(end.protocolErrors).toEqual([]);
    });

    const messages = (stream: number) => end.sent.flatMap((f) => ("message" in f && "stream" in f.message && f.message.stream === stream ? [f.message] : []));
    const data = (stream: number) => end.sent.flatMap((f) => ("data" in f && f.data.stream === stream ? [f.data] : []));
    const framesOf = (stream: number) => messages(stream).length + data(stream).length;
    const credit = (stream: number) => messages(stream).flatMap((m) => (m.type === "window" ? [m.bytes] : []));
    const ended = (stream: number) => messages(stream).find((m) => m.type === "end");
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

    it("never sends more than the credit its peer granted, and finishes as credit comes back", async () => {
      const total = 2 * INITIAL_WINDOW_BYTES + 12_345;
      let granted = INITIAL_WINDOW_BYTES;
      let received = 0;
      let overrun = 0;
      end.onSend((frame) => {
        if (!("data" in frame)) return;
        received += frame.data.payload.byteLength;
        overrun = Math.max(overrun, received - granted);
      });
      const stream = await end.openHttp({ sends: total, receives: false });
      // The suite hands data on as a receiver does: credit goes back once the sender has used most of it.
      await until(() => {
        if (granted - received < WINDOW_UPDATE_THRESHOLD && granted < total) {
          granted += WINDOW_UPDATE_THRESHOLD;
          end.deliver({ type: "window", stream, bytes: WINDOW_UPDATE_THRESHOLD });
        }
        return ended(stream);
      }, "the end of the body");
      expect(overrun).toBe(0);
      expect(received).toBe(total);
      expect(sum(data(stream).map((d) => d.payload.byteLength))).toBe(total);
    });

    it("returns credit for the data it handed on, in batches of at least the update threshold", async () => {
      const stream = await end.openHttp({ sends: 0, receives: true });
      // Several frames, within one window (the peer sends no more without credit).
      const total = 3 * 1024 * 1024 + 7;
      for (let offset = 0; offset < total; offset += MAX_DATA_FRAME_BYTES) {
        end.deliverData(DataKind.body, stream, new Uint8Array(Math.min(MAX_DATA_FRAME_BYTES, total - offset)));
      }
      end.deliver({ type: "end", stream });
      const enough = end.settlesStreams ? total : total - WINDOW_UPDATE_THRESHOLD + 1;
      const returned = await until(() => (sum(credit(stream)) >= enough ? credit(stream) : undefined), "credit for the body");
      // An end that settles returns the last batch, smaller, as it finishes the stream.
      const batches = end.settlesStreams ? returned.slice(0, -1) : returned;
      expect(Math.min(...batches)).toBeGreaterThanOrEqual(WINDOW_UPDATE_THRESHOLD);
      expect(sum(returned)).toBe(end.settlesStreams ? total : sum(batches));
      expect(sum(returned)).toBeLessThanOrEqual(total);
    });

    it("aborts and forgets a stream whose peer sends more than one window without credit back", async () => {
      const stream = await end.openHttp({ sends: 0, receives: true });
      const open = end.openStreams;
      for (let sent = 0; sent <= INITIAL_WINDOW_BYTES; sent += MAX_DATA_FRAME_BYTES) {
        end.deliverData(DataKind.body, stream, new Uint8Array(MAX_DATA_FRAME_BYTES));
      }
      const abort = await until(() => messages(stream).find((m) => m.type === "abort"), "the abort");
      expect(abort).toEqual({ type: "abort", stream, reason: expect.stringContaining("exceeded the flow-control window") });
      expect(end.openStreams).toBe(open - 1);
    });

    it("ends a stream the peer aborts at once: forgotten, unanswered, its late frames dropped quietly", async () => {
      const stream = await end.openHttp({ sends: 2 * INITIAL_WINDOW_BYTES, receives: false });
      await until(() => (data(stream).length > 0 ? true : undefined), "the first data");
      const open = end.openStreams;
      end.deliver({ type: "abort", stream, reason: "client went away" });
      expect(end.openStreams).toBe(open - 1);
      const framesAtAbort = framesOf(stream);
      expect(end.deliverData(DataKind.body, stream, new Uint8Array(1))).toBeNull();
      end.deliver({ type: "window", stream, bytes: INITIAL_WINDOW_BYTES });
      // A later exchange runs to its end: anything the aborted stream still did would show by then.
      const later = await end.openHttp({ sends: 10, receives: false });
      await until(() => ended(later), "the later exchange");
      expect(framesOf(stream)).toBe(framesAtAbort);
      expect(messages(stream).filter((m) => m.type === "abort" || m.type === "end")).toEqual([]);
    });

    it("ends every stream when the connection is lost, without a frame to the peer", async () => {
      await end.openHttp({ sends: 0, receives: true });
      await end.openHttp({ sends: 2 * INITIAL_WINDOW_BYTES, receives: false });
      const ws = await end.openWebSocket();
      const sentBefore = end.sent.length;
      end.disconnect();
      expect(end.openStreams).toBe(0);
      await end.localClose(ws);
      expect(end.sent.length).toBe(sentBefore);
    });

    it("drops data for a stream that is not open, and refuses data of the wrong kind", async () => {
      expect(end.deliverData(DataKind.body, 4242, new Uint8Array(3))).toBeNull();
      const http = await end.openHttp({ sends: 0, receives: true });
      const ws = await end.openWebSocket();
      expect(end.deliverData(DataKind.wsText, http, new Uint8Array(3))).toBe(`data frame kind ${DataKind.wsText} on http stream ${http}`);
      expect(end.deliverData(DataKind.body, ws, new Uint8Array(3))).toBe(`data frame kind ${DataKind.body} on websocket stream ${ws}`);
      expect(end.openStreams).toBe(2);
    });

    it("carries WebSocket messages whole both ways, keeping their kind, and returns credit for them", async () => {
      const ws = await end.openWebSocket();
      const text = new TextEncoder().encode("héllo");
      end.deliverData(DataKind.wsText, ws, text);
      end.deliverData(DataKind.wsBinary, ws, new Uint8Array([0, 1, 2, 255]));
      const echoes = await until(() => (data(ws).length >= 2 ? data(ws) : undefined), "two echoes");
      expect(echoes.map((f) => [f.kind, [...f.payload]])).toEqual([
        [DataKind.wsText, [...text]],
        [DataKind.wsBinary, [0, 1, 2, 255]],
      ]);
      const big = new Uint8Array(200 * 1024).fill(7);
      for (let i = 0; i < 3; i++) end.deliverData(DataKind.wsBinary, ws, big);
      const returned = await until(() => (credit(ws).length > 0 ? credit(ws) : undefined), "credit for the messages");
      expect(returned[0]).toBeGreaterThanOrEqual(WINDOW_UPDATE_THRESHOLD);
      const all = await until(() => (data(ws).length === 5 ? data(ws) : undefined), "the big echoes");
      expect(all.slice(2).map((f) => [f.kind, f.payload.byteLength])).toEqual(Array(3).fill([DataKind.wsBinary, big.byteLength]));
    });

    it.each([
      { code: 4001, reason: "bye", local: { code: 4001, reason: "bye" } },
      { code: 1000, reason: "done", local: { code: 1000, reason: "done" } },
      { code: 1005, reason: "", local: { code: 1000, reason: "" } },
      { code: 1006, reason: "", local: { code: 1000, reason: "" } },
      { code: 1015, reason: "", local: { code: 1000, reason: "" } },
    ])("closes the local socket for the peer's close $code with $local.code, a code it may send", async ({ code, reason, local }) => {
      const ws = await end.openWebSocket();
      end.deliver({ type: "ws_close", stream: ws, code, reason });
      expect(await end.localClose(ws)).toEqual(local);
    });
  });
}

/** Polls `probe` until it returns a value (never a fixed sleep before checking). */
async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 4_500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
