// Hop-by-hop header fields (RFC 9110 §7.6.1): they belong to one connection and never cross to the
// next hop, in either direction, and neither do the fields a message's Connection header names.
// The proxy's header rules (protocol/mux/headers.ts) and the CLI's local forwarder
// (cli/forward/headers.ts) both apply this one list.
const HOP_BY_HOP = new Set([
  "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection",
  "te", "trailer", "transfer-encoding", "upgrade",
]);

/** For one message, given the values of its Connection headers (any number): whether a header stays on this hop. */
export function hopByHopIn(connectionValues: readonly string[]): (name: string) => boolean {
  const named = new Set(connectionValues.flatMap((value) => value.split(",")).map((token) => token.trim().toLowerCase()).filter(Boolean));
  return (name) => {
    const lower = name.toLowerCase();
    return HOP_BY_HOP.has(lower) || named.has(lower);
  };
}
