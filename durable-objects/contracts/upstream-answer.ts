// The MachineDO's answer when a proxied exchange reached its upstream: the upstream's status and
// body, and its headers as they came, in one header. The Worker builds the client's headers from
// them (protocol/mux/headers.ts), not the MachineDO: every request to every instance on a host
// passes through that one object, one at a time, and a response's headers were a quarter of its CPU
// for a small request (docs/benchmarks.md, "The host's ceiling"). The Worker is as many as needed.
import { errorResponse } from "../../core/errors.ts";
import { isHeaderList } from "../../protocol/json-shapes.ts";
import { clientResponseHeaders } from "../../protocol/mux/headers.ts";

export const UPSTREAM_HEAD_HEADER = "x-gpr-upstream-head";

/** `head`: the upstream's headers, `[name, value]` pairs as asciiJson (protocol/ascii-json.ts). */
export function upstreamAnswer(status: number, body: BodyInit | null, head: string): Response {
  return new Response(body, { status, headers: { [UPSTREAM_HEAD_HEADER]: head } });
}

/**
 * The client's response to the MachineDO's answer: an upstream's, with the headers the client may see
 * and `requestId` as its X-Request-Id; any other answer (a WebSocket's 101, the object's own 502) as it is.
 * Headers that are not a header list, or that no response may carry, are the client's 502.
 */
export function clientResponseOf(answer: Response, requestId: string): Response {
  const head = answer.headers.get(UPSTREAM_HEAD_HEADER);
  if (head === null) return answer;
  try {
    const pairs: unknown = JSON.parse(head);
    if (isHeaderList(pairs)) return new Response(answer.body, { status: answer.status, headers: clientResponseHeaders(pairs, requestId) });
  } catch {
    // Not JSON, or a name or value no header may have: answered below.
  }
  answer.body?.cancel().catch(() => undefined);
  return errorResponse("upstream_unavailable", "the upstream failed: the host sent a malformed response");
}
