// Gives a data frame's memory back once it is written out, not at V8's next collection. A frame's
// buffer, up to a megabyte each way, was most of what the agent allocated in a transfer, and V8 paced
// its collections by what such buffers added up to: released once written, the agent's CPU per MB
// downloaded went from 3.1-3.6 to 2.6-2.9 ms (the bench's throughput suite, four alternating runs).
//
// Only a buffer that holds nothing else: Node hands out small Buffers as slices of a shared pool, and
// ws hands over a message read whole in one socket read as a slice of that read's buffer. `view`,
// with `before` bytes of its buffer ahead of it (a frame's header), must be the whole buffer.
export function releaseWhole(view: Uint8Array, before = 0): void {
  const buffer = view.buffer as ArrayBuffer;
  if (view.byteOffset === before && before + view.byteLength === buffer.byteLength && !buffer.detached) buffer.transfer(0);
}
