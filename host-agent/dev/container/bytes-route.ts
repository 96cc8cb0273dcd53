// `GET /bytes?n=N`: N bytes of the seeded payload (seeded-bytes.ts) streamed with backpressure, for
// download and flow-control tests; `&chunked=1` leaves the length undeclared (chunked transfer), as
// a server streaming something of unknown size does. `GET /bytes/sha256?n=N`: the digest of those
// N bytes, which a test compares with what it received.
import type { ServerResponse } from "node:http";
import { sendJson } from "./json-io.ts";
import { BLOCK_BYTES, payloadBlock, payloadSha256 } from "./seeded-bytes.ts";

/** Writes block by block, resuming on `drain`: one listener at a time (a client that leaves never drains; it goes with the response). */
export function streamBytes(res: ServerResponse, count: number, chunked: boolean): void {
  let remaining = count;
  let index = 0;
  res.writeHead(200, { "content-type": "application/octet-stream", ...(chunked ? {} : { "content-length": remaining }) });
  const fill = (): void => {
    while (remaining > 0 && !res.destroyed) {
      const block = payloadBlock(index++);
      const chunk = remaining >= BLOCK_BYTES ? block : block.subarray(0, remaining);
      remaining -= chunk.byteLength;
      if (!res.write(chunk)) return void res.once("drain", fill);
    }
    res.end();
  };
  fill();
}

export function sendBytesDigest(res: ServerResponse, count: number): void {
  sendJson(res, 200, { bytes: count, sha256: payloadSha256(count) });
}
