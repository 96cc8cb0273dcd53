// The one error type of the API and its JSON shape `{"error", "message"}` (spec: Errors).
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export type ErrorCode =
  | "bad_request"
  | "invalid"
  | "unauthorized"
  | "insufficient_funds"
  | "not_found"
  | "no_capacity"
  | "gpus_busy"
  | "conflict"
  | "not_running"
  | "payload_too_large"
  | "rate_limited"
  | "upstream_unavailable"
  | "internal";

const statusOf: Record<ErrorCode, ContentfulStatusCode> = {
  bad_request: 400,
  invalid: 400,
  unauthorized: 401,
  insufficient_funds: 402,
  not_found: 404,
  no_capacity: 409,
  gpus_busy: 409,
  conflict: 409,
  not_running: 409,
  payload_too_large: 413,
  rate_limited: 429,
  upstream_unavailable: 502,
  internal: 500,
};

export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.status = statusOf[code];
    this.headers = headers;
  }
}

/** A failure crossing a Durable Object RPC boundary (RPC keeps only an error's message). */
export interface Failure {
  ok: false;
  code: ErrorCode;
  message: string;
}

export const fail = (code: ErrorCode, message: string): Failure => ({ ok: false, code, message });

/** Unwraps a discriminated RPC result, throwing its failure as an ApiError. */
export function unwrap<R extends { ok: boolean }>(result: R): Exclude<R, { ok: false }> {
  if (!result.ok) {
    const failure = result as unknown as Failure;
    throw new ApiError(failure.code, failure.message);
  }
  return result as Exclude<R, { ok: false }>;
}

export function errorResponse(error: ApiError, requestId: string): Response {
  const headers = requestId ? { ...error.headers, "x-request-id": requestId } : error.headers;
  return Response.json({ error: error.code, message: error.message }, { status: error.status, headers });
}

/** Any thrown value as the ApiError a client sees: never a stack trace or internal text. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  // Hono's validators throw HTTPException for bodies that are not JSON.
  if (error instanceof HTTPException && error.status === 400) return new ApiError("bad_request", "the request body is not valid JSON");
  if (error instanceof HTTPException && error.status === 413) return new ApiError("payload_too_large", "the request body is too large");
  console.log(JSON.stringify({ level: "error", msg: "unhandled error", error: String(error), stack: (error as Error)?.stack }));
  return new ApiError("internal", "internal error; try again");
}
