// Headers of the agent's own connection to the container port. The upstream headers arrive already
// decided (protocol/mux/headers.ts); what stays here is about this local hop only: the upstream
// sees the container port as its Host, as it would locally, and the ws client writes its own
// WebSocket handshake.

/** Headers for the upstream request, in Node's form; repeated names stay repeated. */
export function upstreamRequestHeaders(pairs: readonly [string, string][], containerPort: number): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [rawName, value] of pairs) {
    const name = rawName.toLowerCase();
    const existing = headers[name];
    headers[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  headers.host = `localhost:${containerPort}`;
  return headers;
}

/** Response headers as [name, value] pairs from Node's rawHeaders, so several Set-Cookie stay separate. */
export function responseHeaderPairs(rawHeaders: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) pairs.push([rawHeaders[i] ?? "", rawHeaders[i + 1] ?? ""]);
  return pairs;
}

/** Headers for an upstream WebSocket handshake: the ws client writes the handshake's own (no body). */
export function upstreamWsHeaders(pairs: readonly [string, string][], containerPort: number): Record<string, string | string[]> {
  const headers = upstreamRequestHeaders(pairs, containerPort);
  for (const name of Object.keys(headers)) {
    if (name.startsWith("sec-websocket-") || name === "content-length") delete headers[name];
  }
  return headers;
}
