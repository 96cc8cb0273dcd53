// Relays a readable source to the MachineDO as the body data frames of one stream, then `end`:
// never more than the credit the MachineDO granted, never faster than the agent socket drains. The
// source is paused whenever either runs out, so the agent holds at most one read's worth of it.
// A bulk body (a files download) may ask for frames of at least `gatherBytes` but its last: a
// source read in small pieces (a pipe from `tar`, 10 to 64 KB a read) then makes a frame of many,
// and the MachineDO pays per frame. A stream that must not wait (an event stream) gathers nothing.
// A relay is made with its stream, before the response head: credit granted meanwhile counts once
// `start` hands it the source.
import type { Readable } from "node:stream";
import { releaseWhole } from "../../protocol/mux/buffer-release.ts";
import { SendCredit } from "../../protocol/mux/flow-control.ts";
import { DATA_HEADER_BYTES, DataKind, MAX_DATA_FRAME_BYTES } from "../../protocol/mux/frames.ts";
import type { StreamTransport } from "./stream-transport.ts";

export interface RelayOutcome {
  /** `end` was sent: the whole source went out. */
  onFinished(): void;
  /** The source failed or closed early; nothing was sent about it yet. */
  onFailed(reason: string): void;
}

export class BodyRelay {
  readonly #stream: number;
  readonly #transport: StreamTransport;
  readonly #credit = new SendCredit();
  #source: Readable | null = null;
  #outcome: RelayOutcome | null = null;
  /** Bytes read from the source but not yet sent: one read's worth beyond the credit or `gatherBytes`. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #gatherBytes = 0;
  #sourceEnded = false;
  #waitingForDrain = false;
  #pumpScheduled = false;
  #stopped = false;

  constructor(stream: number, transport: StreamTransport) {
    this.#stream = stream;
    this.#transport = transport;
  }

  /** Relays `source` from now on, within the credit granted so far and later, in frames of at least `gatherBytes` but the last. */
  start(source: Readable, outcome: RelayOutcome, gatherBytes = 0): void {
    this.#source = source;
    this.#outcome = outcome;
    this.#gatherBytes = gatherBytes;
    source.on("data", (chunk: Buffer) => {
      // An empty read adds nothing to a frame (and a frame is sized by the bytes pending).
      if (chunk.byteLength === 0) return;
      this.#pending.push(chunk);
      this.#pendingBytes += chunk.byteLength;
      this.#schedulePump();
    });
    source.on("end", () => {
      this.#sourceEnded = true;
      this.#pump();
    });
    source.on("error", (error: Error) => this.#fail(`error: ${error.message}`));
    source.on("close", () => {
      if (!this.#sourceEnded) this.#fail("closed before its end");
    });
  }

  /** The MachineDO handed on `bytes`: that much more may be sent. */
  grant(bytes: number): void {
    this.#credit.grant(bytes);
    this.#pump();
  }

  /** Sends nothing more (the stream was given up); the owner destroys the source. */
  stop(): void {
    this.#stopped = true;
    this.#pending = [];
    this.#pendingBytes = 0;
  }

  /** Reads that arrive in one turn of the event loop leave together: fewer, bigger frames. */
  #schedulePump(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  #pump(): void {
    if (this.#stopped) return;
    while (this.#pending.length > 0 && this.#credit.available > 0 && !this.#transport.congested() && this.#gathered()) {
      // Each frame carries as many pending bytes as fit (up to MAX_DATA_FRAME_BYTES and the credit):
      // the MachineDO pays per frame, not per byte. They are copied once, into the frame itself, after
      // room for its header: gathered first and then framed, each byte was copied twice, and the
      // garbage of the second copy was a third of the agent's collections on a download.
      const size = Math.min(MAX_DATA_FRAME_BYTES, this.#credit.available, this.#pendingBytes);
      const frame = Buffer.allocUnsafe(DATA_HEADER_BYTES + size);
      let filled = 0;
      while (filled < size) {
        const chunk = this.#pending[0]!;
        const take = Math.min(chunk.byteLength, size - filled);
        frame.set(take === chunk.byteLength ? chunk : chunk.subarray(0, take), DATA_HEADER_BYTES + filled);
        filled += take;
        if (take === chunk.byteLength) {
          this.#pending.shift();
          // Copied whole: the read's buffer goes back now, if the read has it to itself (buffer-release.ts).
          releaseWhole(chunk);
        } else {
          this.#pending[0] = chunk.subarray(take);
        }
      }
      this.#transport.sendData(DataKind.body, this.#stream, frame.subarray(DATA_HEADER_BYTES), true);
      this.#credit.consume(size);
      this.#pendingBytes -= size;
    }
    if (this.#pending.length > 0 && this.#gathered()) {
      this.#source?.pause();
      if (this.#transport.congested() && !this.#waitingForDrain) {
        this.#waitingForDrain = true;
        this.#transport.whenUncongested(() => {
          this.#waitingForDrain = false;
          this.#pump();
        });
      }
      return;
    }
    if (!this.#sourceEnded) return void this.#source?.resume();
    this.#stopped = true;
    this.#transport.send({ type: "end", stream: this.#stream });
    this.#outcome?.onFinished();
  }

  /** Enough is pending for a frame: `gatherBytes`, or whatever is left once the source ended. */
  #gathered(): boolean {
    return this.#sourceEnded || this.#pendingBytes >= this.#gatherBytes;
  }

  #fail(reason: string): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#outcome?.onFailed(reason);
  }
}
