// One SSH connection on the agent's multiplexer (ssh_open): the client's raw SSH bytes arrive as
// binary WebSocket messages and are handed to the agent's in-process SSH server as a socket; what
// the server writes goes back the same way within the MachineDO's credit. It is a WebSocket stream
// to the MachineDO (ws_accepted, ws_close), with the SSH server where a container port would be.
import { Duplex } from "node:stream";
import type { ServerMessage } from "../../protocol/messages.ts";
import { NORMAL_CLOSURE } from "../../protocol/mux/close-codes.ts";
import { DataKind } from "../../protocol/mux/frames.ts";
import { AgentStream } from "../proxy/agent-stream.ts";
import { CreditedSender } from "../proxy/credited-sender.ts";
import type { StreamTransport } from "../proxy/stream-transport.ts";
import { OutgoingBatch } from "./outgoing-batch.ts";

export type SshOpenMessage = Extract<ServerMessage, { type: "ssh_open" }>;

/** What the SSH server is given as its client's socket: a stream with the few socket fields it reads. */
export class StreamSocket extends Duplex {
  readonly remoteAddress = "127.0.0.1";
  readonly remotePort = 0;
  readonly remoteFamily = "IPv4";
  readonly #write: (chunk: Buffer) => void;
  readonly #final: () => void;

  /** `write` takes every chunk at once: what waits after it is bounded by SSH's channel windows (channel-limits.ts). */
  constructor(write: (chunk: Buffer) => void, final: () => void) {
    super({ allowHalfOpen: false });
    this.#write = write;
    this.#final = final;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.#write(chunk);
    done();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.#final();
    done();
  }

  setNoDelay(): this {
    return this;
  }
}

export class SshStream extends AgentStream<SshOpenMessage> {
  readonly carries = "websocket";
  readonly socket: StreamSocket;
  /**
   * The SSH server speaks first (its banner), but bytes sent before the client's WebSocket is joined
   * end to end are lost on the way: its output waits for the client's first bytes, which prove it.
   */
  readonly #sender = new CreditedSender(this.transport, this.message.stream, {}, { started: false });
  readonly #batch = new OutgoingBatch((payload) => this.#sender.sendBytes(DataKind.wsBinary, payload), () => this.#sender.unacknowledged);

  constructor(message: SshOpenMessage, transport: StreamTransport, onClosed: () => void) {
    super(message, transport, onClosed);
    this.socket = new StreamSocket(
      (chunk) => {
        if (!this.closed) this.#batch.push(chunk);
      },
      () => this.#end(NORMAL_CLOSURE, "ssh connection closed"),
    );
    this.socket.on("error", () => this.#end(NORMAL_CLOSURE, "ssh connection closed"));
  }

  /** The SSH server has the socket: the MachineDO may give the client its 101. */
  accept(): void {
    if (!this.closed) this.transport.send({ type: "ws_accepted", stream: this.message.stream, protocol: "" });
  }

  refuse(): void {
    this.fail("upstream_unavailable");
  }

  onData(kind: DataKind, payload: Uint8Array): void {
    if (this.closed) return;
    if (kind !== DataKind.wsBinary) return this.#end(1003, "SSH travels in binary messages");
    if (!this.receive(payload.byteLength)) return this.fail("WebSocket data exceeded the flow-control window");
    this.socket.push(payload);
    // The SSH server reads at once; SSH's own channel windows bound what it holds for slow channels.
    this.consumed(payload.byteLength);
    this.#sender.start();
  }

  /** The client's WebSocket closed: the SSH connection is over; the close is answered so the MachineDO can finish too. */
  override onWsClose(): void {
    this.#end(NORMAL_CLOSURE, "client closed");
  }

  onWindow(bytes: number): void {
    this.#sender.grant(bytes);
    this.#batch.flush();
  }

  protected release(): void {
    this.#sender.stop();
    this.#batch.clear();
    this.socket.destroy();
  }

  #end(code: number, reason: string): void {
    if (this.closed) return;
    this.transport.send({ type: "ws_close", stream: this.message.stream, code, reason });
    this.release();
    this.finish();
  }
}
