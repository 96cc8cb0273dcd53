// `GET /bytes?n=N`: N bytes (the repeating pattern 0..255) streamed with backpressure, for download
// and flow-control tests; `&chunked=1` leaves the length undeclared (chunked transfer), as a server
// streaming something of unknown size does.
import type { ServerResponse } from "node:http";

const CHUNK = Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => i % 256));

/** Writes chunk by chunk, resuming on `drain`: one listener at a time (a client that leaves never drains; it goes with the response). */
export function streamBytes(res: ServerResponse, count: number, chunked: boolean): void {
  let remaining = count;
  res.writeHead(200, { "content-type": "application/octet-stream", ...(chunked ? {} : { "content-length": remaining }) });
  const fill = (): void => {
    while (remaining > 0 && !res.destroyed) {
      const chunk = remaining >= CHUNK.byteLength ? CHUNK : CHUNK.subarray(0, remaining);
      remaining -= chunk.byteLength;
      if (!res.write(chunk)) return void res.once("drain", fill);
    }
    res.end();
  };
  fill();
}
