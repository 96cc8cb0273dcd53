// The path and query of a request exactly as the client encoded them: read from the raw URL, since
// URL parsing would normalise them (percent-encoding, dot segments) and an upstream must get what
// was sent.

/** The path and query of `rawUrl` (at least "/"). */
export function rawPathAndQuery(rawUrl: string): string {
  const pathStart = rawUrl.indexOf("/", rawUrl.indexOf("//") + 2);
  return pathStart < 0 ? "/" : rawUrl.slice(pathStart);
}
