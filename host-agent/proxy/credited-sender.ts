// A stream's data frames to the MachineDO, sent in order within the stream's send credit and while
// the agent's connection is not congested; what waits is queued, and the source is told to pause
// while anything waits (onBacklog) and to go on once all is sent (onDrained). The proxied WebSocket,
// the SSH connection and the terminal send through one of these each.
import { INITIAL_WINDOW_BYTES, SendCredit } from "../../protocol/mux/flow-control.ts";
import { MAX_WS_MESSAGE_BYTES, type DataKind } from "../../protocol/mux/frames.ts";
import type { StreamTransport } from "./stream-transport.ts";

interface Waiting {
  kind: DataKind;
  payload: Buffer;
  /** Called once this frame is sent (the end of a write split into frames). */
  sent: (() => void) | null;
}

export interface SenderHooks {
  onBacklog?(): void;
  onDrained?(): void;
}

export class CreditedSender {
  readonly #transport: StreamTransport;
  readonly #stream: number;
  readonly #hooks: SenderHooks;
  readonly #credit = new SendCredit();
  #waiting: Waiting[] = [];
  #waitingForDrain = false;
  #started: boolean;
  #stopped = false;
  #whenIdle: (() => void)[] = [];

  /** `started: false`: frames wait until start() (an SSH server's banner waits for its client's first bytes). */
  constructor(transport: StreamTransport, stream: number, hooks: SenderHooks = {}, { started = true } = {}) {
    this.#transport = transport;
    this.#stream = stream;
    this.#hooks = hooks;
    this.#started = started;
  }

  /** Bytes sent that the MachineDO has not yet returned credit for. */
  get unacknowledged(): number {
    return INITIAL_WINDOW_BYTES - this.#credit.available;
  }

  get idle(): boolean {
    return this.#waiting.length === 0;
  }

  /** One message, sent as one frame. */
  send(kind: DataKind, payload: Buffer, sent: (() => void) | null = null): void {
    if (this.#stopped) return sent?.();
    this.#waiting.push({ kind, payload, sent });
    this.#pump();
  }

  /** A byte stream's chunk, in frames of at most one message's size; `sent` once its last frame is. */
  sendBytes(kind: DataKind, chunk: Buffer, sent: (() => void) | null = null): void {
    for (let offset = 0; offset < chunk.byteLength; offset += MAX_WS_MESSAGE_BYTES) {
      const last = offset + MAX_WS_MESSAGE_BYTES >= chunk.byteLength;
      this.send(kind, chunk.subarray(offset, offset + MAX_WS_MESSAGE_BYTES), last ? sent : null);
    }
  }

  grant(bytes: number): void {
    this.#credit.grant(bytes);
    this.#pump();
  }

  start(): void {
    this.#started = true;
    this.#pump();
  }

  /** Calls `then` once nothing waits to be sent (at once when nothing does); never after stop(). */
  whenIdle(then: () => void): void {
    if (this.#stopped) return;
    this.#whenIdle.push(then);
    this.#pump();
  }

  /** The stream is over: what waits is dropped, nothing more is sent. */
  stop(): void {
    this.#stopped = true;
    this.#waiting = [];
    this.#whenIdle = [];
  }

  #pump(): void {
    if (this.#stopped || !this.#started) return;
    for (;;) {
      const next = this.#waiting[0];
      if (!next || next.payload.byteLength > this.#credit.available || this.#transport.congested()) break;
      this.#transport.sendData(next.kind, this.#stream, next.payload);
      this.#credit.consume(next.payload.byteLength);
      this.#waiting.shift();
      next.sent?.();
    }
    if (this.#waiting.length === 0) {
      this.#hooks.onDrained?.();
      for (const then of this.#whenIdle.splice(0)) then();
      return;
    }
    this.#hooks.onBacklog?.();
    if (this.#transport.congested() && !this.#waitingForDrain) {
      this.#waitingForDrain = true;
      this.#transport.whenUncongested(() => {
        this.#waitingForDrain = false;
        this.#pump();
      });
    }
  }
}
