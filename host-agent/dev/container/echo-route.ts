// `/echo/...`: describes the request exactly as it arrived, hashing the body as it streams past
// (512 MB uploads go through here, so the body is never held in memory), and sets the cookies the
// query asks for.
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
  // `set_cookies=N` answers with N Set-Cookie headers, for tests of how each way in treats them.
  const setCookies = Number(new URLSearchParams(queryAt === -1 ? "" : rawUrl.slice(queryAt + 1)).get("set_cookies") ?? 0);
  if (Number.isInteger(setCookies) && setCookies > 0) {
    res.setHeader("set-cookie", Array.from({ length: Math.min(setCookies, 10) }, (_, i) => `echo_${i}=${i}; Path=/`));
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
