// Gives a frame's buffer back the moment an end of the connection is done with it, not at V8's next
// collection. An ArrayBuffer's memory is freed only when V8 collects it, and V8 paces its collections
// by its heap, which a proxied transfer barely touches: a buffer detached is freed at once.
// - The MachineDO: each frame's megabyte waited for a collection, and a fresh stack's Worker process
//   grew by 41-68 MB during one download or upload before one came (the bench's memory suite).
// - The agent: these buffers were most of what it allocated in a transfer, and V8 paced its
//   collections by what they added up to: released, its CPU per MB downloaded went from 3.1-3.6 to
//   2.6-2.9 ms with the frames, then to 2.2-2.5 with the upstream's reads too (the bench's throughput
//   suite, alternating runs).

/**
 * Releases the buffer `bytes` views. Only for a buffer nothing reads again, in any view: sending on a
 * workerd WebSocket copies the bytes, and a write to a response stream resolves once it took them.
 */
export function release(bytes: Uint8Array): void {
  const buffer = bytes.buffer as ArrayBuffer;
  if (!buffer.detached) buffer.transfer(0);
}

/**
 * Releases the buffer `view` views only when it holds nothing else: `view`, with `before` bytes of its
 * buffer ahead of it (a frame's header), is the whole buffer. Node hands small Buffers out of a shared
 * pool, and ws hands a message read whole in one socket read over as a slice of that read's buffer.
 */
export function releaseWhole(view: Uint8Array, before = 0): void {
  if (view.byteOffset === before && before + view.byteLength === view.buffer.byteLength) release(view);
}
