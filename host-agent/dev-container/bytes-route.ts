// `GET /bytes?n=N`: N bytes (the repeating pattern 0..255) streamed with backpressure, for download
// and flow-control tests; `&chunked=1` leaves the length undeclared (chunked transfer), as a server
// streaming something of unknown size does.
import { once } from "node:events";
import type { ServerResponse } from "node:http";

const CHUNK = Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => i % 256));

export async function streamBytes(res: ServerResponse, count: number, chunked: boolean): Promise<void> {
  let remaining = count;
  res.writeHead(200, { "content-type": "application/octet-stream", ...(chunked ? {} : { "content-length": remaining }) });
  while (remaining > 0 && !res.destroyed) {
    const chunk = remaining >= CHUNK.byteLength ? CHUNK : CHUNK.subarray(0, remaining);
    remaining -= chunk.byteLength;
    if (!res.write(chunk)) await Promise.race([once(res, "drain"), once(res, "close")]);
  }
  res.end();
}
