// Binary data frames: [kind u8][stream id u32 big-endian][payload]. Bodies and WebSocket messages
// travel this way so the data path does no JSON and no base64.

export const DataKind = { body: 1, wsText: 2, wsBinary: 3 } as const;
export type DataKind = (typeof DataKind)[keyof typeof DataKind];

export const DATA_HEADER_BYTES = 5;
/**
 * Largest payload of one binary data frame; bigger chunks are split. With its header a frame is at most
 * 1 MiB, the WebSocket message a Worker is documented to receive; fewer, bigger frames cost the
 * MachineDO and the agent less per byte (docs/benchmarks.md: 256 KiB frames moved 25–35% less).
 */
export const MAX_DATA_FRAME_BYTES = 1024 * 1024 - DATA_HEADER_BYTES;
/**
 * Largest WebSocket message either way. A message is never split (one message, one data frame), so it
 * is what one frame carries: a bigger frame from the agent would be over the Worker's 1 MiB receive
 * limit, which closes the agent's socket and with it every stream of the machine, not just this one.
 * A bigger message closes only its own socket, with 1009 at both ends.
 */
export const MAX_WS_MESSAGE_BYTES = MAX_DATA_FRAME_BYTES;

export interface DataFrame {
  kind: DataKind;
  stream: number;
  payload: Uint8Array;
}

export function encodeDataFrame(kind: DataKind, stream: number, payload: Uint8Array): Uint8Array {
  const frame = new Uint8Array(DATA_HEADER_BYTES + payload.byteLength);
  frame.set(payload, DATA_HEADER_BYTES);
  return writeDataHeader(frame, kind, stream);
}

/**
 * Frames a payload in place, without a copy: the payload must have DATA_HEADER_BYTES of its own
 * buffer free just before it (a reader that reads into a buffer at that offset leaves them so).
 */
export function frameInPlace(kind: DataKind, stream: number, payload: Uint8Array): Uint8Array {
  if (payload.byteOffset < DATA_HEADER_BYTES) throw new RangeError("no room for the frame header before the payload");
  return writeDataHeader(new Uint8Array(payload.buffer, payload.byteOffset - DATA_HEADER_BYTES, DATA_HEADER_BYTES + payload.byteLength), kind, stream);
}

function writeDataHeader(frame: Uint8Array, kind: DataKind, stream: number): Uint8Array {
  frame[0] = kind;
  new DataView(frame.buffer, frame.byteOffset, DATA_HEADER_BYTES).setUint32(1, stream);
  return frame;
}

export function decodeDataFrame(bytes: Uint8Array): DataFrame | { error: string } {
  if (bytes.byteLength < DATA_HEADER_BYTES) return { error: `data frame of ${bytes.byteLength} bytes is shorter than its header` };
  const kind = bytes[0];
  if (kind !== DataKind.body && kind !== DataKind.wsText && kind !== DataKind.wsBinary) {
    return { error: `data frame kind ${kind} is unknown` };
  }
  const stream = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(1);
  if (stream === 0) return { error: "data frame for stream 0" };
  return { kind, stream, payload: bytes.subarray(DATA_HEADER_BYTES) };
}
