// Gives every request an id, returned as X-Request-Id on every response (errors included).
import { randomBase32 } from "../../lib/ids.ts";

export const newRequestId = () => `req_${randomBase32(20)}`;

export function withRequestId(response: Response, requestId: string): Response {
  if (response.headers.has("x-request-id")) return response;
  if (response.status === 101 || isImmutable(response)) {
    const copy = new Response(response.body, response);
    copy.headers.set("x-request-id", requestId);
    return copy;
  }
  response.headers.set("x-request-id", requestId);
  return response;
}

function isImmutable(response: Response): boolean {
  try {
    response.headers.set("x-request-id", "");
    response.headers.delete("x-request-id");
    return false;
  } catch {
    return true;
  }
}
