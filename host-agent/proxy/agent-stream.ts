// What every stream of the agent's multiplexer shares: its opening message and transport, being
// closed exactly once (dropped quietly, finished, or failed with an abort to the MachineDO), and
// handing request credit back to the MachineDO as the local side takes the data.
import { ReceiveCredit } from "../../protocol/mux/flow-control.ts";
import type { DataKind } from "../../protocol/mux/frames.ts";
import type { MuxStream } from "../../protocol/mux/stream-table.ts";
import type { StreamTransport } from "./stream-transport.ts";

export abstract class AgentStream<M extends { stream: number }> implements MuxStream {
  abstract readonly carries: "http" | "websocket";
  protected readonly message: M;
  protected readonly transport: StreamTransport;
  readonly #onClosed: () => void;
  /** Data the MachineDO may send before this end hands credit back (request bodies, client messages). */
  readonly #receiveCredit = new ReceiveCredit();
  #closed = false;

  constructor(message: M, transport: StreamTransport, onClosed: () => void) {
    this.message = message;
    this.transport = transport;
    this.#onClosed = onClosed;
  }

  protected get closed(): boolean {
    return this.#closed;
  }

  abstract onData(kind: DataKind, payload: Uint8Array): void;
  abstract onWindow(bytes: number): void;

  /** The request body is complete: only a stream that takes one acts on it (a WebSocket ends with ws_close). */
  onEnd(): void {}

  /** The client's WebSocket closed: only a WebSocket stream has an upstream socket to close. */
  onWsClose(_code: number, _reason: string): void {}

  /** The MachineDO gave up on the stream (its client went away). */
  onAbort(): void {
    this.close();
  }

  onDisconnect(): void {
    this.close();
  }

  /** Drops the stream and says nothing to the MachineDO (it aborted, or the connection is gone). */
  close(): void {
    if (this.#closed) return;
    this.release();
    this.finish();
  }

  /** Lets go of what the stream holds open (upstream sockets, log sources) when it is dropped. */
  protected abstract release(): void;

  /** The stream is over: nothing more is sent for it, and its owner forgets it. */
  protected finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClosed();
  }

  /** Handling one of its frames threw (the agent's own fault): the stream fails, and nothing else does. */
  faulted(): void {
    this.fail("the host's agent failed on this stream");
  }

  /** Tells the MachineDO the stream failed, then drops it. */
  protected fail(reason: string): void {
    if (this.#closed) return;
    this.transport.send({ type: "abort", stream: this.message.stream, reason });
    this.close();
  }

  /** Counts data from the MachineDO against its credit; false when it overran the window. */
  protected receive(bytes: number): boolean {
    return this.#receiveCredit.receive(bytes);
  }

  /** The local side took `bytes` of the MachineDO's data: hands the credit back once enough is due. */
  protected consumed(bytes: number): void {
    const credit = this.#receiveCredit.consume(bytes);
    if (credit > 0 && !this.#closed) this.transport.send({ type: "window", stream: this.message.stream, bytes: credit });
  }
}
