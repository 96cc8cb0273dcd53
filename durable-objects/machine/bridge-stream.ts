// What every stream of the MachineDO's multiplexer shares, whatever it carries (HTTP exchanges, file
// transfers and log streams; WebSockets, which carry SSH sessions and terminals too): its id and its
// link to the agent socket, flow control both ways, being finished once, and its log lines. The
// agent's end has the same base (host-agent/proxy/agent-stream.ts); protocol/mux/flow-control.ts
// says how credit works.
//
// Data to the agent goes within the credit the agent returns, and within what the stream's instance
// and the connection may have out (upload-budget.ts): a kind that reads a body waits for both
// (sendBody), a kind that is handed data by events queues it, sent in order as they allow (queue).
// The agent's data counts against the window this end granted (received), and the credit goes back
// as the client takes the data (handedOn).
import { errorResponse } from "../../core/errors.ts";
import { log, type LogFields, type LogLevel } from "../../core/log.ts";
import {
  encodeDataFrame, frameInPlace, MAX_DATA_FRAME_BYTES, ReceiveCredit, release, SendCredit, type DataKind, type MuxStream,
  type ServerMessage,
} from "../../protocol/index.ts";
import { readChunks, type ReadRoom } from "./body-reads.ts";
import type { UploadAllowance } from "./upload-budget.ts";

/** What a stream sends through: the agent socket, and the bridge's table of open streams. */
export interface StreamLink {
  sendControl(message: ServerMessage): void;
  /** A data frame already encoded (frames.ts). */
  sendData(frame: Uint8Array): void;
  /** The stream is finished on this side; forget it. */
  close(): void;
  /** The ids a log line about this stream carries (request, account, instance, machine, stream). */
  logIds(): LogFields;
  /** The stream's part of what its instance and the connection may have out to the agent. */
  readonly upload: UploadAllowance;
}

export abstract class BridgeStream implements MuxStream {
  abstract readonly carries: MuxStream["carries"];
  protected readonly id: number;
  protected readonly link: StreamLink;
  readonly #sendCredit = new SendCredit();
  readonly #receiveCredit = new ReceiveCredit();
  /** Data handed to `queue`, framed, waiting for the agent's credit. */
  readonly #queued: { frame: Uint8Array; bytes: number }[] = [];
  #queuedBytes = 0;
  /** Queued data waits for the upload budget's room (not the stream's credit). */
  #awaitingRoom = false;
  #finished = false;

  constructor(id: number, link: StreamLink) {
    this.id = id;
    this.link = link;
  }

  protected get finished(): boolean {
    return this.#finished;
  }

  /** Whether `bytes` handed to `queue` now would wait for the agent's credit rather than go at once. */
  protected wouldWait(bytes: number): boolean {
    return this.#queued.length > 0 || bytes > this.#sendCredit.available;
  }

  /** What waits in `queue` grew or, negative, shrank by `bytes` (sent on, or dropped as the stream finished). */
  protected queueChanged(_bytes: number): void {}

  abstract onData(kind: DataKind, payload: Uint8Array): void;
  abstract onAbort(reason: string): void;
  abstract onDisconnect(): void;
  /** The credential that opened the stream has ended (stream-credentials.ts): it ends, telling the agent and the client `reason`. */
  abstract revoke(reason: string): void;

  /** The agent's side is complete: only a kind that carries a body acts on it (a WebSocket ends with ws_close). */
  onEnd(): void {}

  /** The WebSocket at the agent's end closed: only a WebSocket stream has a client socket to close. */
  onWsClose(_code: number, _reason: string): void {}

  /** The agent handed on `bytes` of what this end sent: queued data goes as far as the credit and the budget now allow. */
  onWindow(bytes: number): void {
    this.#sendCredit.grant(bytes);
    // Streams that waited for the budget's room go on first (unacknowledged-budget.ts).
    this.link.upload.acknowledged(bytes);
    this.#flush();
  }

  /**
   * Sends a body to the agent as it arrives, in frames of up to MAX_DATA_FRAME_BYTES, each once the
   * agent's credit and the upload budget allow, then `end`; stops early when the stream finishes, or
   * when `admit` (told the bytes read so far) says no, having failed the stream itself. `room`: for
   * the buffers it is read into (body-reads.ts). Throws when the body breaks off.
   */
  protected async sendBody(kind: DataKind, body: ReadableStream<Uint8Array>, room: ReadRoom, admit: (totalBytes: number) => boolean): Promise<void> {
    let total = 0;
    for await (const { bytes, headroom } of readChunks(body, room)) {
      if (this.#finished) return;
      total += bytes.byteLength;
      if (!admit(total)) return;
      for (let offset = 0; offset < bytes.byteLength; offset += MAX_DATA_FRAME_BYTES) {
        const part = bytes.subarray(offset, offset + MAX_DATA_FRAME_BYTES);
        // Our own read buffer keeps room for the header: framed in place, no copy (sending copies).
        const frame = headroom && offset === 0 ? frameInPlace(kind, this.id, part) : encodeDataFrame(kind, this.id, part);
        await this.#sendCredit.take(part.byteLength);
        while (this.link.upload.held) await new Promise<void>((resolve) => this.link.upload.whenRoom(resolve));
        if (this.#finished) return;
        this.link.sendData(frame);
        this.link.upload.sent(part.byteLength);
      }
    }
    if (!this.#finished) this.link.sendControl({ type: "end", stream: this.id });
  }

  /** Sends `payload` (at most one data frame's worth) as soon as the credit allows, after what is queued already. */
  protected queue(kind: DataKind, payload: Uint8Array): void {
    if (this.#finished) return;
    this.#queued.push({ frame: encodeDataFrame(kind, this.id, payload), bytes: payload.byteLength });
    this.#queuedBytes += payload.byteLength;
    this.queueChanged(payload.byteLength);
    this.#flush();
  }

  #flush(): void {
    while (!this.#finished && !this.#awaitingRoom && this.#queued[0] && this.#queued[0].bytes <= this.#sendCredit.available) {
      if (this.link.upload.held) {
        this.#awaitingRoom = true;
        this.link.upload.whenRoom(() => {
          this.#awaitingRoom = false;
          this.#flush();
        });
        return;
      }
      const { frame, bytes } = this.#queued.shift()!;
      this.#queuedBytes -= bytes;
      this.queueChanged(-bytes);
      this.#sendCredit.consume(bytes);
      this.link.sendData(frame);
      release(frame);
      this.link.upload.sent(bytes);
    }
  }

  /** Counts `bytes` of the agent's data against the window; false (and logged) when the agent overran it, a broken protocol. */
  protected received(bytes: number): boolean {
    if (this.#receiveCredit.receive(bytes)) return true;
    this.log("error", "the agent sent more than the flow-control window");
    return false;
  }

  /** The client took `bytes` of the agent's data: the credit goes back once enough is due. */
  protected handedOn(bytes: number): void {
    const credit = this.#receiveCredit.consume(bytes);
    if (credit > 0 && !this.#finished) this.link.sendControl({ type: "window", stream: this.id, bytes: credit });
  }

  /** Tells the agent this end gave up on the stream. */
  protected sendAbort(reason: string): void {
    this.link.sendControl({ type: "abort", stream: this.id, reason });
  }

  /** The stream is over on this side: nothing more is sent for it, a sender waiting for credit stops, and the bridge forgets it. */
  protected finish(): void {
    if (this.#finished) return;
    // Whatever this end still holds of the agent's data is dropped or handed on now: all its credit
    // goes back, so the agent's budget stops counting the stream (settles_streams in the welcome).
    const credit = this.#receiveCredit.settle();
    if (credit > 0) this.link.sendControl({ type: "window", stream: this.id, bytes: credit });
    this.#finished = true;
    if (this.#queuedBytes > 0) this.queueChanged(-this.#queuedBytes);
    this.#queued.length = 0;
    this.#queuedBytes = 0;
    this.#sendCredit.release();
    this.link.upload.release();
    this.link.close();
  }

  protected log(level: LogLevel, msg: string, fields: LogFields = {}): void {
    log(level, msg, { ...this.link.logIds(), ...fields });
  }
}

/** The client's answer when the upstream fails before the stream is answered (and when no agent is connected). */
export function upstreamUnavailable(detail?: string): Response {
  return errorResponse("upstream_unavailable", detail ? `the upstream failed: ${detail}` : "nothing answers on that port yet, or the host is offline");
}
