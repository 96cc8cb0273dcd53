// The one value the Worker hands the MachineDO for a proxied exchange: where it goes, the upstream
// headers already computed, the request id and, for a WebSocket, the offered subprotocols.
// It rides the MachineDO `fetch` as one header, not an RPC argument, because Workers RPC can carry
// the request body stream in and a streamed Response out, but cannot return a 101 Response holding
// a WebSocket (workerd: "Could not serialize object of type WebSocket"); so the exchange stays a
// fetch, and this value is encoded and schema-checked by the two functions below, nowhere else.
import { z } from "zod";
import type { ProxyTarget } from "./proxy-bridge.ts";

export const PROXY_REQUEST_HEADER = "x-gpr-proxy-request";

export interface ProxyRequest extends ProxyTarget {
  requestId: string;
  /** The subprotocols a WebSocket client offered; null for plain HTTP. */
  websocket: { protocols: string[] } | null;
}

const proxyRequest: z.ZodType<ProxyRequest> = z.object({
  instanceId: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  target: z.string().startsWith("/"),
  method: z.string().min(1),
  headers: z.array(z.tuple([z.string(), z.string()])),
  requestId: z.string(),
  websocket: z.object({ protocols: z.array(z.string()) }).nullable(),
});

/** The header value: JSON with every non-ASCII character escaped, so any header value survives. */
export function encodeProxyRequest(request: ProxyRequest): string {
  return JSON.stringify(request).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export function decodeProxyRequest(value: string | null): { ok: true; request: ProxyRequest } | { ok: false; reason: string } {
  if (value === null) return { ok: false, reason: `${PROXY_REQUEST_HEADER} is missing` };
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    return { ok: false, reason: `${PROXY_REQUEST_HEADER} is not JSON` };
  }
  const parsed = proxyRequest.safeParse(raw);
  if (parsed.success) return { ok: true, request: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, reason: `${PROXY_REQUEST_HEADER} rejected at ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}` };
}
