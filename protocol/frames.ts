// Binary data frames: [kind u8][stream id u32 big-endian][payload]. Bodies and WebSocket messages
// travel this way so the data path does no JSON and no base64.
export const DataKind = { body: 1, wsText: 2, wsBinary: 3 } as const;
export type DataKind = (typeof DataKind)[keyof typeof DataKind];

export const DATA_HEADER_BYTES = 5;

export interface DataFrame {
  kind: DataKind;
  stream: number;
  payload: Uint8Array;
}

export function encodeDataFrame(kind: DataKind, stream: number, payload: Uint8Array): Uint8Array {
  const frame = new Uint8Array(DATA_HEADER_BYTES + payload.byteLength);
  frame[0] = kind;
  new DataView(frame.buffer).setUint32(1, stream);
  frame.set(payload, DATA_HEADER_BYTES);
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
