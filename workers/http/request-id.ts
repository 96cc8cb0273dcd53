// Gives every request an id, returned as X-Request-Id on every response (errors included).
import { randomBase32 } from "../../core/ids.ts";
import { withHeaders } from "./response-headers.ts";

export const newRequestId = () => `req_${randomBase32(20)}`;

/**
 * The id the entry point gave each request, for code that needs it deeper in (the API's routes, whose
 * Hono app is handed only the request): keyed by the request object itself, so nothing a client sends
 * can set it, and forgotten with the request.
 */
const idsByRequest = new WeakMap<Request, string>();

export function rememberRequestId(request: Request, requestId: string): void {
  idsByRequest.set(request, requestId);
}

/** The request's id, "" for a request the entry point never saw (a test calling a route directly). */
export function requestIdOf(request: Request): string {
  return idsByRequest.get(request) ?? "";
}

export function withRequestId(response: Response, requestId: string): Response {
  if (response.headers.has("x-request-id")) return response;
  return withHeaders(response, (headers) => headers.set("x-request-id", requestId));
}
