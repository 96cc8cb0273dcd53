// Small JSON request/response helpers for the dev container's OpenAI-style routes.
import type { IncomingMessage, ServerResponse } from "node:http";

/** Request bodies of the JSON routes are small; anything bigger is refused rather than buffered. */
const MAX_JSON_BODY_BYTES = 16 * 1024 * 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

export function sendOpenAiError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: { message, type: "invalid_request_error", code: null } });
}

export type JsonBody = { ok: true; value: Record<string, unknown> } | { ok: false; status: number; message: string };

export async function readJsonObject(req: IncomingMessage): Promise<JsonBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.byteLength;
    if (size > MAX_JSON_BODY_BYTES) return { ok: false, status: 413, message: "request body too large" };
    chunks.push(buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return { ok: false, status: 400, message: "request body is not valid JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, status: 400, message: "request body must be a JSON object" };
  }
  return { ok: true, value: value as Record<string, unknown> };
}
