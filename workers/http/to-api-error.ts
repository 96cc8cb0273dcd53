// Any thrown value as the ApiError a client sees: never a stack trace or internal text.
import { HTTPException } from "hono/http-exception";
import { ApiError } from "../../core/errors.ts";
import { log } from "../../core/log.ts";

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  // Hono and @hono/zod-openapi throw these for a body they cannot take (the API's body rule refuses
  // such bodies first; this keeps an input from ever becoming a 500 should one get past it).
  if (error instanceof HTTPException && (error.status === 400 || error.status === 415)) {
    return new ApiError("bad_request", "the request body must be a JSON object, with Content-Type: application/json");
  }
  if (error instanceof HTTPException && error.status === 413) return new ApiError("payload_too_large", "the request body is too large");
  log("error", "unhandled error", { error: String(error), stack: (error as Error)?.stack });
  return new ApiError("internal", "internal error; try again");
}
