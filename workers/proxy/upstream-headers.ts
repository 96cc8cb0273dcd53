// The request headers an upstream receives: hop-by-hop headers, the caller's credentials and
// cookies removed; X-Upstream-Authorization becomes Authorization; X-Forwarded-* added.
import { connectionTokens, isHopByHop } from "../../durable-objects/machine/headers.ts";
import type { ProxyPath } from "./proxy-path.ts";

const NEVER_FORWARDED = new Set(["host", "authorization", "cookie", "x-upstream-authorization", "content-length"]);

export function upstreamHeaders(request: Request, path: ProxyPath, clientIp: string): Headers {
  const incoming = request.headers;
  const websocket = incoming.get("upgrade")?.toLowerCase() === "websocket";
  const tokens = connectionTokens(incoming.get("connection"));
  const headers = new Headers();
  for (const [name, value] of incoming) {
    if (NEVER_FORWARDED.has(name) || name.startsWith("cf-") || name.startsWith("x-gpr-")) continue;
    // A WebSocket upgrade keeps its Upgrade/Connection so the MachineDO can tell it apart.
    if (isHopByHop(name, tokens) && !(websocket && (name === "upgrade" || name === "connection"))) continue;
    headers.set(name, value);
  }
  const upstreamAuth = incoming.get("x-upstream-authorization");
  if (upstreamAuth) headers.set("authorization", upstreamAuth);
  const url = new URL(request.url);
  const forwardedFor = incoming.get("x-forwarded-for");
  headers.set("x-forwarded-for", forwardedFor ? `${forwardedFor}, ${clientIp}` : clientIp);
  headers.set("x-forwarded-proto", url.protocol.replace(":", ""));
  headers.set("x-forwarded-host", incoming.get("host") ?? url.host);
  headers.set("x-forwarded-prefix", path.prefix);
  const length = incoming.get("content-length");
  if (length !== null) headers.set("content-length", length);
  return headers;
}
