// Why the agent asks V8 for a young collection as it relays bytes. Every read of a socket is a new
// buffer outside the JavaScript heap (Node reads 64 KiB at a time), and so is every WebSocket message
// ws assembles from them. A relayed buffer is garbage as soon as it is written on, but its memory goes
// back only when V8 collects the small object that holds it, and V8 collects for memory outside its
// heap only after some 30 MB more of it: the agent's first large upload grew it by 31-33 MB, all of it
// buffers already relayed (docs/benchmarks.md, "Buffers given back as they are relayed"). A young
// collection every few MiB relayed gives them back while they are few, and costs the agent no CPU
// measurable per MB: the buffers are dead, so a collection has almost nothing to copy.
//
// The collection is V8's own `gc`, which Node gives only to a process started with --expose-gc
// (host-agent/node-flags.ts, passed by every launcher). Without it the agent relays as before.

/** Bytes relayed between two young collections. */
export const COLLECT_EVERY_BYTES = 8 * 1024 * 1024;

export class RelayedBuffers {
  readonly #collect: (() => void) | null;
  #since = 0;

  /** `collect`: one young collection; V8's when the process exposes it, else none. */
  constructor(collect: (() => void) | null = youngCollection()) {
    this.#collect = collect;
  }

  /** `bytes` were read or written on the agent's socket, in buffers of their own. */
  relayed(bytes: number): void {
    if (!this.#collect) return;
    this.#since += bytes;
    if (this.#since < COLLECT_EVERY_BYTES) return;
    this.#since = 0;
    this.#collect();
  }
}

function youngCollection(): (() => void) | null {
  const gc = globalThis.gc;
  return gc ? () => gc({ type: "minor" }) : null;
}
