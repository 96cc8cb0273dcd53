// Gives every request an id, returned as X-Request-Id on every response (errors included).
import { randomBase32 } from "../../core/ids.ts";

export const newRequestId = () => `req_${randomBase32(20)}`;

export function withRequestId(response: Response, requestId: string): Response {
  if (response.headers.has("x-request-id")) return response;
  try {
    response.headers.set("x-request-id", requestId);
    return response;
  } catch {
    // Headers of a response from another object's fetch are immutable: copy (the body is not).
    const copy = new Response(response.body, response);
    copy.headers.set("x-request-id", requestId);
    return copy;
  }
}
