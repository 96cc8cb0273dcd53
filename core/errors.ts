// The one error type of the service and its JSON shape `{"error", "message"}`. Thrown anywhere in
// the Worker; renders itself (as Hono's HTTPException does). Durable Objects return `Failure`s
// instead, because Workers RPC keeps only an error's message.
export type ErrorCode =
  | "bad_request"
  | "invalid"
  | "unauthorized"
  | "forbidden"
  | "account_frozen"
  | "insufficient_funds"
  | "budget_exceeded"
  | "not_found"
  | "no_capacity"
  | "gpus_busy"
  | "conflict"
  | "not_running"
  | "payload_too_large"
  | "rate_limited"
  | "upstream_unavailable"
  | "internal";

export const STATUS_OF = {
  bad_request: 400,
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  account_frozen: 403,
  insufficient_funds: 402,
  budget_exceeded: 402,
  not_found: 404,
  no_capacity: 409,
  gpus_busy: 409,
  conflict: 409,
  not_running: 409,
  payload_too_large: 413,
  rate_limited: 429,
  upstream_unavailable: 502,
  internal: 500,
} as const satisfies Record<ErrorCode, number>;

export type ErrorStatus = (typeof STATUS_OF)[ErrorCode];

export class ApiError extends Error {
  readonly status: ErrorStatus;
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.status = STATUS_OF[code];
    this.headers = headers;
  }

  /** The response a client sees; `requestId` ("" for none) becomes X-Request-Id. */
  toResponse(requestId = ""): Response {
    const headers = requestId ? { ...this.headers, "x-request-id": requestId } : this.headers;
    return Response.json({ error: this.code, message: this.message }, { status: this.status, headers });
  }
}

/** A failure crossing a Durable Object RPC boundary; `headers` go on the response (e.g. Retry-After). */
/** A successful answer of an object's call, with its fields. */
export type Ok<T> = { ok: true } & T;

export interface Failure {
  ok: false;
  code: ErrorCode;
  message: string;
  headers?: Record<string, string>;
}

export const fail = (code: ErrorCode, message: string, headers?: Record<string, string>): Failure =>
  headers ? { ok: false, code, message, headers } : { ok: false, code, message };

/** Unwraps a discriminated RPC result, throwing its failure as an ApiError. */
export function unwrap<R extends { ok: boolean }>(result: R): Exclude<R, { ok: false }> {
  if (!result.ok) {
    const failure = result as unknown as Failure;
    throw new ApiError(failure.code, failure.message, failure.headers);
  }
  return result as Exclude<R, { ok: false }>;
}

/** An error response built where no ApiError is thrown (inside a Durable Object's fetch). */
export const errorResponse = (code: ErrorCode, message: string): Response => new ApiError(code, message).toResponse();
