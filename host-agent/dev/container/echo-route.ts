// `/echo/...`: describes the request exactly as it arrived, hashing the body as it streams past
// (512 MB uploads go through here, so the body is never held in memory).
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { sendJson } from "./json-io.ts";

export async function echoRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const rawUrl = req.url ?? "/";
  const queryAt = rawUrl.indexOf("?");
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    if (values) headers[name] = values.join(", ");
  }
  const hash = createHash("sha256");
  let bodyBytes = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    bodyBytes += buffer.byteLength;
    hash.update(buffer);
  }
  sendJson(res, 200, {
    method: req.method,
    path: queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt),
    query: queryAt === -1 ? "" : rawUrl.slice(queryAt + 1),
    headers,
    body_bytes: bodyBytes,
    body_sha256: hash.digest("hex"),
  });
}
