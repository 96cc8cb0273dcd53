// Upstream routes written for speed, under /fast/: the bench's minimal server (its baseline (a))
// serves exactly these, and so does the dev container, so the proxied instance's upstream is as fast
// as the baseline it is compared with. Large writes of one preallocated block, no per-chunk work, no
// JSON, no request log line.
import type { IncomingMessage, ServerResponse } from "node:http";

/** 1 MiB of the repeating pattern 0..255, written as is: one write per MiB. */
const BLOCK = Buffer.from(Array.from({ length: 1 << 20 }, (_, i) => i % 256));
const DIGITS = /^\d{1,15}$/;

/**
 * `GET /fast/health` (2 bytes), `GET /fast/bytes?n=N` (N bytes of the pattern, Content-Length set) and
 * `POST /fast/sink` (the body counted and dropped; answers the count as text). False for any other path.
 */
export function serveFast(req: IncomingMessage, res: ServerResponse): boolean {
  const url = req.url ?? "/";
  if (!url.startsWith("/fast/")) return false;
  const queryAt = url.indexOf("?");
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const route = `${req.method} ${path}`;
  if (route === "GET /fast/health") {
    res.writeHead(200, { "content-type": "text/plain", "content-length": 2 });
    res.end("ok");
  } else if (route === "GET /fast/bytes") {
    const n = new URLSearchParams(queryAt === -1 ? "" : url.slice(queryAt + 1)).get("n") ?? "";
    if (!DIGITS.test(n)) return plain(res, 400, "n must be a whole number of bytes\n");
    writeBytes(res, Number(n));
  } else if (route === "POST /fast/sink") {
    let count = 0;
    req.on("data", (chunk: Buffer) => (count += chunk.byteLength));
    req.on("end", () => plain(res, 200, String(count)));
  } else {
    req.resume();
    return plain(res, 404, `no route ${route}\n`);
  }
  return true;
}

/** Writes `count` bytes block by block, resuming on `drain`: one listener at a time, none left behind. */
function writeBytes(res: ServerResponse, count: number): void {
  res.writeHead(200, { "content-type": "application/octet-stream", "content-length": count });
  let remaining = count;
  const fill = (): void => {
    while (remaining > 0) {
      const block = remaining >= BLOCK.byteLength ? BLOCK : BLOCK.subarray(0, remaining);
      remaining -= block.byteLength;
      // A client that leaves never drains: the listener goes with the response.
      if (!res.write(block)) return void res.once("drain", fill);
    }
    res.end();
  };
  fill();
}

function plain(res: ServerResponse, status: number, text: string): true {
  res.writeHead(status, { "content-type": "text/plain", "content-length": Buffer.byteLength(text) });
  res.end(text);
  return true;
}
