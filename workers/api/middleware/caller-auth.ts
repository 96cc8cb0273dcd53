// Reads the caller's API key: `Authorization: Bearer gpk_<account>_<secret>`. The key is checked by
// its AccountDO on the same call as the operation, so here only its shape is checked.
import type { MiddlewareHandler } from "hono";
import { apiKeys, bearerToken } from "../../../core/credentials.ts";
import { ApiError } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";

export function callerAuth(): MiddlewareHandler<ApiEnv> {
  return async function callerAuth(c, next) {
    const key = bearerToken(c.req.header("authorization"));
    const accountId = key ? apiKeys.ownerOf(key) : null;
    if (!key || !accountId) throw new ApiError("unauthorized", "missing or malformed API key: send Authorization: Bearer <API_KEY>");
    c.set("apiKey", key);
    c.set("accountId", accountId);
    await next();
  };
}
