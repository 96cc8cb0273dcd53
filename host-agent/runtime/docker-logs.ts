// A container's log from the Engine API. A container without a TTY has its stdout and stderr framed
// in one stream: each frame an 8-byte header [stream u8 (1 stdout, 2 stderr), 0, 0, 0, payload size
// u32 big-endian] and its payload; asked with timestamps, each line starts with its RFC 3339 time
// and a space. The engine writes each log message as a frame of its own.
import { Transform, type TransformCallback } from "node:stream";
import type { LogLine } from "./runtime.ts";

const HEADER_BYTES = 8;
const STDERR = 2;

/** Bytes of the engine's framed log in, LogLine objects out. */
export function demultiplexLogs(): Transform {
  let buffer: Buffer = Buffer.alloc(0);
  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      buffer = buffer.byteLength === 0 ? chunk : Buffer.concat([buffer, chunk]);
      while (buffer.byteLength >= HEADER_BYTES) {
        const size = buffer.readUInt32BE(4);
        if (buffer.byteLength < HEADER_BYTES + size) break;
        const stream = buffer[0] === STDERR ? "stderr" : "stdout";
        for (const line of messageLines(buffer.subarray(HEADER_BYTES, HEADER_BYTES + size))) this.push(timestamped(stream, line));
        buffer = buffer.subarray(HEADER_BYTES + size);
      }
      done();
    },
  });
}

/** The lines of one frame's payload; a message split for its length ends without a line break. */
function messageLines(payload: Buffer): string[] {
  const lines = payload.toString("utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

/** "2026-11-23T01:53:59.123456789Z text" → its time as ISO 8601 (milliseconds) and the text. */
export function timestamped(stream: LogLine["stream"], text: string): LogLine {
  const space = text.indexOf(" ");
  const ms = Date.parse(space === -1 ? text : text.slice(0, space));
  if (Number.isNaN(ms)) return { t: new Date().toISOString(), stream, line: text };
  return { t: new Date(ms).toISOString(), stream, line: space === -1 ? "" : text.slice(space + 1) };
}
