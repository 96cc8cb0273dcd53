// Reads the caller's credential: `Authorization: Bearer gpk_<account>_<secret>`, or else the
// `gpr_session` cookie of a signed-in browser. The credential is checked by its AccountDO on the
// same call as the operation, so here only its shape is checked, and for the cookie that a request
// changing something comes from this service's own pages.
import type { MiddlewareHandler } from "hono";
import { apiKeys, bearerToken } from "../../../core/credentials.ts";
import { ApiError } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";
import { isUnsafeMethod, requireSameOrigin } from "../session/same-origin.ts";
import { clearSessionCookie, sessionFrom, setSessionCookie } from "../session/session-cookie.ts";

export function callerAuth(): MiddlewareHandler<ApiEnv> {
  return async function callerAuth(c, next) {
    // A request with Authorization is judged by it alone: another site cannot make a browser send one.
    if (c.req.header("authorization") !== undefined) {
      const key = bearerToken(c.req.header("authorization"));
      const accountId = key ? apiKeys.ownerOf(key) : null;
      if (!key || !accountId) throw new ApiError("unauthorized", "missing or malformed API key: send Authorization: Bearer <API_KEY>");
      c.set("credential", { token: key, may: [] });
      c.set("accountId", accountId);
      return next();
    }
    const session = sessionFrom(c);
    if (!session) throw new ApiError("unauthorized", "send Authorization: Bearer <API_KEY>, or sign in (POST /v1/auth/login) for a session cookie");
    if (isUnsafeMethod(c.req.method)) requireSameOrigin(c);
    c.set("credential", { token: session.token, may: [] });
    c.set("accountId", session.accountId);
    await next();
    // The browser keeps the cookie as long as the server keeps the session, and drops one that ended.
    if (c.res.status === 401) clearSessionCookie(c);
    else setSessionCookie(c, session.token);
  };
}
