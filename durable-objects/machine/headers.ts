// Which headers cross the proxy. Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and
// are never forwarded, in either direction.
const HOP_BY_HOP = new Set([
  "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection",
  "te", "trailer", "transfer-encoding", "upgrade",
]);

export function isHopByHop(name: string, connectionTokens: Set<string>): boolean {
  const lower = name.toLowerCase();
  return HOP_BY_HOP.has(lower) || connectionTokens.has(lower);
}

export function connectionTokens(value: string | null): Set<string> {
  return new Set((value ?? "").split(",").map((token) => token.trim().toLowerCase()).filter(Boolean));
}

/** Response headers from the upstream as the client will see them. */
export function responseHeaders(pairs: [string, string][]): Headers {
  const tokens = connectionTokens(pairs.find(([name]) => name.toLowerCase() === "connection")?.[1] ?? null);
  const headers = new Headers();
  for (const [name, value] of pairs) {
    if (isHopByHop(name, tokens)) continue;
    headers.append(name, value);
  }
  return headers;
}
