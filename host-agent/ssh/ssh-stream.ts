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

export type SshOpenMessage = Extract<ServerMessage, { type: "ssh_open" }>;

/** What the SSH server is given as its client's socket: a stream with the few socket fields it reads. */
export class StreamSocket extends Duplex {
  readonly remoteAddress = "127.0.0.1";
  readonly remotePort = 0;
  readonly remoteFamily = "IPv4";
  readonly #write: (chunk: Buffer, done: (error?: Error | null) => void) => void;
  readonly #final: () => void;

  constructor(write: (chunk: Buffer, done: (error?: Error | null) => void) => void, final: () => void) {
    super({ allowHalfOpen: false });
    this.#write = write;
    this.#final = final;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.#write(chunk, () => setImmediate(done));
  }

  /**
   * The SSH server writes a packet at a time (32 KiB at most): each write is acknowledged a turn of the
   * event loop later, so the packets of one turn gather here and cross as one message, not dozens.
   */
  override _writev(chunks: { chunk: Buffer }[], done: (error?: Error | null) => void): void {
    this.#write(Buffer.concat(chunks.map(({ chunk }) => chunk)), () => setImmediate(done));
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

  constructor(message: SshOpenMessage, transport: StreamTransport, onClosed: () => void) {
    super(message, transport, onClosed);
    this.socket = new StreamSocket(
      (chunk, done) => (this.closed ? done() : this.#sender.sendBytes(DataKind.wsBinary, chunk, done)),
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
    this.socket.push(Buffer.from(payload));
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
  }

  protected release(): void {
    this.#sender.stop();
    this.socket.destroy();
  }

  #end(code: number, reason: string): void {
    if (this.closed) return;
    this.transport.send({ type: "ws_close", stream: this.message.stream, code, reason });
    this.release();
    this.finish();
  }
}
