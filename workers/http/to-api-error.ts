// Any thrown value as the ApiError a client sees: never a stack trace or internal text. An unexpected
// one (a 500 nobody meant) is kept with its response, for the request's access line to log it.
import { HTTPException } from "hono/http-exception";
import { ApiError } from "../../core/errors.ts";

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  // Hono and @hono/zod-openapi throw these for a body they cannot take (the API's body rule refuses
  // such bodies first; this keeps an input from ever becoming a 500 should one get past it).
  if (error instanceof HTTPException && (error.status === 400 || error.status === 415)) {
    return new ApiError("bad_request", "the request body must be a JSON object, with Content-Type: application/json");
  }
  if (error instanceof HTTPException && error.status === 413) return new ApiError("payload_too_large", "the request body is too large");
  return new ApiError("internal", "internal error; try again");
}

const unexpectedErrors = new WeakMap<Response, unknown>();

/** The error response for `error`; `requestId` ("" for none) becomes X-Request-Id. */
export function errorResponseFor(error: unknown, requestId = ""): Response {
  const apiError = toApiError(error);
  const response = apiError.toResponse(requestId);
  if (apiError.code === "internal" && !(error instanceof ApiError)) unexpectedErrors.set(response, error);
  return response;
}

/** The unexpected error behind `response`, if errorResponseFor made it from one. */
export function unexpectedErrorOf(response: Response): unknown {
  return unexpectedErrors.get(response);
}
