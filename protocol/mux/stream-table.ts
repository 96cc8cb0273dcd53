// Stream dispatch, one for both ends (as frp's msg.Dispatcher serves its client and its server):
// the open streams by id, and the routing of the peer's stream frames and data frames to them.
// Each end opens streams its own way (the MachineDO assigns ids and sends the request; the agent
// answers it); everything after the opening goes through here.
import type { AgentMessage, ServerMessage } from "../messages.ts";
import { DataKind, type DataFrame } from "./frames.ts";

/** What a proxied stream does with its peer's frames, at either end: the interface both ends implement. */
export interface MuxStream {
  /** HTTP streams carry body bytes; WebSocket streams carry whole text and binary messages. */
  readonly carries: "http" | "websocket";
  /** Data from the peer, within the credit this end granted (flow-control.ts). */
  onData(kind: DataKind, payload: Uint8Array): void;
  /** The peer handed on `bytes` of what this end sent: that much more may be sent. */
  onWindow(bytes: number): void;
  /** The peer's body is complete. */
  onEnd(): void;
  /** The peer gave up on the stream; nothing more is said about it. */
  onAbort(reason: string): void;
  /** The WebSocket at the peer's end closed with this code and reason. */
  onWsClose(code: number, reason: string): void;
  /** The connection to the peer is gone: end without a frame to it. */
  onDisconnect(): void;
}

/** The stream frames both ends send, keyed by stream id. */
export type StreamControl = Extract<AgentMessage | ServerMessage, { type: "window" | "end" | "abort" | "ws_close" }>;

export class StreamTable<S extends MuxStream> {
  readonly #streams = new Map<number, S>();

  get size(): number {
    return this.#streams.size;
  }

  get(id: number): S | undefined {
    return this.#streams.get(id);
  }

  add(id: number, stream: S): void {
    this.#streams.set(id, stream);
  }

  /** Forgets `stream`, unless its id already names a newer stream. */
  remove(id: number, stream: S): void {
    if (this.#streams.get(id) === stream) this.#streams.delete(id);
  }

  /** Routes a stream frame; false when no such stream is open (it may just have finished). */
  route(frame: StreamControl): boolean {
    const stream = this.#streams.get(frame.stream);
    if (!stream) return false;
    switch (frame.type) {
      case "window":
        stream.onWindow(frame.bytes);
        break;
      case "end":
        stream.onEnd();
        break;
      case "abort":
        stream.onAbort(frame.reason);
        break;
      case "ws_close":
        stream.onWsClose(frame.code, frame.reason);
        break;
    }
    return true;
  }

  /**
   * Routes a data frame; returns why it was refused, or null. Data for a stream no longer open is
   * expected (it crossed the end) and dropped quietly.
   */
  routeData(frame: DataFrame): string | null {
    const stream = this.#streams.get(frame.stream);
    if (!stream) return null;
    if ((frame.kind === DataKind.body) !== (stream.carries === "http")) return `data frame kind ${frame.kind} on ${stream.carries} stream ${frame.stream}`;
    stream.onData(frame.kind, frame.payload);
    return null;
  }

  /** The connection is gone: every stream ends, and the table is empty. */
  disconnectAll(): void {
    const streams = [...this.#streams.values()];
    this.#streams.clear();
    for (const stream of streams) stream.onDisconnect();
  }
}
