// Reads the caller's API key: `Authorization: Bearer gpk_<account>_<secret>`. The key is checked by
// its AccountDO on the same call as the operation, so here only its shape is checked.
import type { MiddlewareHandler } from "hono";
import { accountIdOfKey } from "../../../durable-objects/account/keys.ts";
import { ApiError } from "../errors.ts";
import type { ApiEnv } from "../hono-env.ts";

export function callerAuth(): MiddlewareHandler<ApiEnv> {
  return async function callerAuth(c, next) {
    const key = bearerToken(c.req.header("authorization"));
    const accountId = key ? accountIdOfKey(key) : null;
    if (!key || !accountId) throw new ApiError("unauthorized", "missing or malformed API key: send Authorization: Bearer <API_KEY>");
    c.set("apiKey", key);
    c.set("accountId", accountId);
    await next();
  };
}

export function bearerToken(header: string | undefined | null): string | null {
  return /^Bearer +(\S+)\s*$/i.exec(header ?? "")?.[1] ?? null;
}
