// How the agent masks what it sends on its WebSocket to the MachineDO. A client masks every frame
// (RFC 6455, 5.3), and ws does it in JavaScript one byte at a time when its optional native add-on
// (bufferutil) is absent, as it is from the agent's bundle (scripts/build-agent.ts): 1.35 ms of the
// agent's CPU per MiB it sends, more than half of what a proxied download cost it. ws takes its mask
// functions from the runtime's `http` module where a runtime gives them (`http.websocketMask`); these
// mask 32 bits at a time, 0.25 ms per MiB. ws reads them when it is first loaded, so each entry of the
// agent imports this module before anything else.
import http from "node:http";

/** `output[offset + i] = source[i] ^ mask[i % 4]` for the first `length` bytes of `source`, ws's signature. */
export function maskInto(source: Uint8Array, mask: Uint8Array, output: Uint8Array, offset: number, length: number): void {
  const target = output.subarray(offset, offset + length);
  if (source !== output || offset !== 0) target.set(source.subarray(0, length));
  xorInPlace(target, mask);
}

/** Undoes `maskInto` in place, ws's signature. */
export function unmaskInPlace(bytes: Uint8Array, mask: Uint8Array): void {
  xorInPlace(bytes, mask);
}

/** `bytes[i] ^= mask[i % 4]`: byte by byte up to a 4-byte boundary of the buffer, then by words, then the rest. */
function xorInPlace(bytes: Uint8Array, mask: Uint8Array): void {
  const length = bytes.byteLength;
  let i = 0;
  const head = Math.min(length, (4 - (bytes.byteOffset & 3)) & 3);
  for (; i < head; i++) bytes[i]! ^= mask[i & 3]!;
  const words = (length - i) >>> 2;
  if (words > 0) {
    // The mask as it lines up from byte i, in the platform's byte order (a view of the same bytes).
    const lined = new Uint8Array(4);
    for (let k = 0; k < 4; k++) lined[k] = mask[(i + k) & 3]!;
    const word = new Uint32Array(lined.buffer)[0]!;
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + i, words);
    for (let w = 0; w < words; w++) view[w]! ^= word;
    i += words * 4;
  }
  for (; i < length; i++) bytes[i]! ^= mask[i & 3]!;
}

Object.assign(http, { websocketMask: maskInto, websocketUnmask: unmaskInPlace });
