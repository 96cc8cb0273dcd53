// A small response sent whole as one binary frame, to a MachineDO whose welcome says
// `response_frames`: [kind 4][stream u32][status u16][head length u32][head][body], integers
// big-endian. The head is the upstream's headers as `asciiJson` pairs, which the MachineDO hands the
// Worker as they are, without reading them (the Worker builds the client's headers); the body is its
// bytes, not base64. So the MachineDO's work for a small response is reading eleven bytes.
import { isPrintableAscii } from "../ascii-json.ts";
import { DATA_HEADER_BYTES } from "./frames.ts";

/** The first byte of a response frame; the data frames' kinds (frames.ts) are 1-3. */
export const RESPONSE_FRAME_KIND = 4;
const HEADER_BYTES = DATA_HEADER_BYTES + 2 + 4;

export interface ResponseFrame {
  stream: number;
  status: number;
  /** The upstream's headers, `[name, value]` pairs as printable-ASCII JSON; not parsed here. */
  head: string;
  body: Uint8Array;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `head` must be printable ASCII (asciiJson's output), so each character is one byte. */
export function encodeResponseFrame(stream: number, status: number, head: string, body: Uint8Array): Uint8Array {
  const frame = new Uint8Array(HEADER_BYTES + head.length + body.byteLength);
  const view = new DataView(frame.buffer);
  frame[0] = RESPONSE_FRAME_KIND;
  view.setUint32(1, stream);
  view.setUint16(5, status);
  view.setUint32(7, head.length);
  encoder.encodeInto(head, frame.subarray(HEADER_BYTES));
  frame.set(body, HEADER_BYTES + head.length);
  return frame;
}

/** The stream a frame names, read before the rest is checked (0: none readable). */
export function responseFrameStream(bytes: Uint8Array): number {
  return bytes.byteLength < DATA_HEADER_BYTES ? 0 : new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(1);
}

export function decodeResponseFrame(bytes: Uint8Array): ResponseFrame | { error: string } {
  if (bytes.byteLength < HEADER_BYTES) return { error: `response frame of ${bytes.byteLength} bytes is shorter than its header` };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stream = view.getUint32(1);
  const status = view.getUint16(5);
  const headBytes = view.getUint32(7);
  if (stream === 0) return { error: "response frame for stream 0" };
  if (status < 100 || status > 599) return { error: `response frame status ${status} is not an HTTP status` };
  if (headBytes > bytes.byteLength - HEADER_BYTES) return { error: `response frame head of ${headBytes} bytes overruns the frame` };
  const head = decoder.decode(bytes.subarray(HEADER_BYTES, HEADER_BYTES + headBytes));
  if (!isPrintableAscii(head)) return { error: "response frame head is not printable ASCII" };
  return { stream, status, head, body: bytes.subarray(HEADER_BYTES + headBytes) };
}
