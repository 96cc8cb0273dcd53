// Header handling at the agent's end of the proxy: hop-by-hop headers belong to one connection and
// are not forwarded; the upstream sees the container port as its host, as it would locally.
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "proxy-authenticate",
  "proxy-authorization",
]);

/** Headers for the upstream request; repeated names stay repeated. */
export function upstreamRequestHeaders(pairs: readonly [string, string][], containerPort: number): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [rawName, value] of pairs) {
    const name = rawName.toLowerCase();
    if (HOP_BY_HOP.has(name) || name === "host") continue;
    const existing = headers[name];
    headers[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  headers.host = `localhost:${containerPort}`;
  return headers;
}

/** Response headers as [name, value] pairs from Node's rawHeaders, so several Set-Cookie stay separate. */
export function responseHeaderPairs(rawHeaders: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? "";
    if (!HOP_BY_HOP.has(name.toLowerCase())) pairs.push([name, rawHeaders[i + 1] ?? ""]);
  }
  return pairs;
}

/** Headers for an upstream WebSocket handshake: the ws client writes its own handshake headers. */
export function upstreamWsHeaders(pairs: readonly [string, string][], containerPort: number): Record<string, string | string[]> {
  const headers = upstreamRequestHeaders(pairs, containerPort);
  for (const name of Object.keys(headers)) {
    if (name.startsWith("sec-websocket-") || name === "content-length") delete headers[name];
  }
  return headers;
}
