// Why a webhook delivery failed, in words its owner can act on (a delivery's `last_error`). A failed
// fetch says little by itself: workerd rejects a connection refused or cut with "Network connection
// lost." and a name that does not resolve with "internal error; reference = …", and names neither
// the host nor the cause. What each means is said here, with the endpoint's host and port.

/** The text for an attempt that got no answer: cut off at `timeoutMs`, no connection, or no name. */
export function deliveryErrorText(error: unknown, url: string, timeoutMs: number): string {
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError") return `no answer within ${timeoutMs / 1000} s`;
  const message = error instanceof Error ? error.message : String(error);
  const where = hostAndPort(url);
  if (message === "Network connection lost.") return `could not connect to ${where}, or the connection was cut before an answer (refused: nothing listening there?)`;
  const reference = /^internal error; reference = (\S+)$/.exec(message)?.[1];
  if (reference !== undefined) {
    const cause = isIpLiteral(new URL(url).hostname) ? "no connection could be made" : "its name does not resolve (DNS), or no connection could be made";
    return `could not reach ${where}: ${cause} (reference ${reference})`;
  }
  return message;
}

/** What to show for the endpoint's address: host and port, the scheme's default made explicit. */
function hostAndPort(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || (parsed.protocol === "https:" ? "443" : "80")}`;
}

function isIpLiteral(hostname: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || hostname.startsWith("[");
}
