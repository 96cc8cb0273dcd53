// Gives a buffer's memory back once the agent is done with it, not at V8's next collection: a frame
// once written out, a request body's message once the upstream took it, an upstream's read once
// copied into a frame. These buffers were most of what the agent allocated in a transfer, and V8
// paced its collections by what they added up to: released, the agent's CPU per MB downloaded went
// from 3.1-3.6 to 2.6-2.9 ms with the frames, then to 2.2-2.5 with the reads too (the bench's
// throughput suite, alternating runs).
//
// Only a buffer that holds nothing else: Node hands out small Buffers as slices of a shared pool, and
// ws hands over a message read whole in one socket read as a slice of that read's buffer. `view`,
// with `before` bytes of its buffer ahead of it (a frame's header), must be the whole buffer.
export function releaseWhole(view: Uint8Array, before = 0): void {
  const buffer = view.buffer as ArrayBuffer;
  if (view.byteOffset === before && before + view.byteLength === buffer.byteLength && !buffer.detached) buffer.transfer(0);
}
