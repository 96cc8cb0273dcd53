// Routes with a JSON body refuse other content types as 400 bad_request before validation.
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../../core/errors.ts";

export function jsonBody(): MiddlewareHandler {
  return async function jsonBody(c, next) {
    const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (!/^application\/([\w.-]+\+)?json$/.test(type)) {
      throw new ApiError("bad_request", "the request body must be JSON with Content-Type: application/json");
    }
    await next();
  };
}
