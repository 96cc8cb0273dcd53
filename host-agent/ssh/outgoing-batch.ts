// What the agent's SSH server writes for one connection, gathered into few, big messages to the
// MachineDO. The server writes a packet at a time (32 KiB at most, each encrypted on its own), and the
// agent, the MachineDO, the Worker and `gpu ssh-proxy` each pay per message as well as per byte
// (docs/benchmarks.md, "SSH through the bridge"): so what one turn of the event loop writes leaves
// together at its end, and while the MachineDO has not yet acknowledged WINDOW_UPDATE_THRESHOLD of
// what was sent (a bulk transfer outrunning it), more is gathered until its credit comes back, up to
// one message's size. A keystroke's echo (nothing unacknowledged) still leaves at the end of its turn.
import { WINDOW_UPDATE_THRESHOLD } from "../../protocol/mux/flow-control.ts";
import { MAX_WS_MESSAGE_BYTES } from "../../protocol/mux/frames.ts";

export class OutgoingBatch {
  readonly #send: (payload: Buffer) => void;
  readonly #unacknowledged: () => number;
  #chunks: Buffer[] = [];
  #bytes = 0;
  #scheduled = false;

  /**
   * `unacknowledged`: bytes sent that the MachineDO has not yet returned credit for. It returns credit
   * once WINDOW_UPDATE_THRESHOLD is due, so holding while that much is out always ends.
   */
  constructor(send: (payload: Buffer) => void, unacknowledged: () => number) {
    this.#send = send;
    this.#unacknowledged = unacknowledged;
  }

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#bytes += chunk.byteLength;
    if (this.#bytes >= MAX_WS_MESSAGE_BYTES) return this.flush();
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.flush();
    });
  }

  /** Sends what was gathered, unless the MachineDO is behind and there is room for more. */
  flush(): void {
    if (this.#bytes === 0) return;
    if (this.#bytes < MAX_WS_MESSAGE_BYTES && this.#unacknowledged() >= WINDOW_UPDATE_THRESHOLD) return;
    const payload = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#bytes);
    this.#chunks = [];
    this.#bytes = 0;
    this.#send(payload);
  }

  clear(): void {
    this.#chunks = [];
    this.#bytes = 0;
  }
}
