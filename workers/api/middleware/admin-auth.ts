// Guards the operator API with ADMIN_TOKEN, compared in constant time. No token configured: closed.
import type { MiddlewareHandler } from "hono";
import { bearerToken } from "../../../core/credentials.ts";
import { constantTimeEqual, sha256Hex } from "../../../core/hash.ts";
import { ApiError } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";

export function adminAuth(): MiddlewareHandler<ApiEnv> {
  return async function adminAuth(c, next) {
    const presented = bearerToken(c.req.header("authorization"));
    const expected = c.env.ADMIN_TOKEN;
    // Hashing both sides first makes the comparison independent of the token's length.
    if (!presented || !expected || !constantTimeEqual(await sha256Hex(presented), await sha256Hex(expected))) {
      throw new ApiError("unauthorized", "operator token missing or wrong");
    }
    await next();
  };
}
