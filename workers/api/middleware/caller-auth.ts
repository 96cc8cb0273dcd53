// Reads the caller's credential: `Authorization: Bearer gpk_<account>_<secret>`, or else the
// `gpr_session` cookie of a signed-in browser. An API key is checked by its AccountDO on the same call
// as the operation, so here only its shape is checked. A session is checked by its person's PersonDO,
// which names the person and the account the session acts on; the Worker vouches for the person to
// that account, which checks their membership and role on the same call. For the cookie, a request
// changing something must come from this service's own pages.
import type { MiddlewareHandler } from "hono";
import { apiKeys, bearerToken } from "../../../core/credentials.ts";
import { personOf } from "../../../core/env.ts";
import { ApiError } from "../../../core/errors.ts";
import { callerIp } from "../../http/caller-ip.ts";
import type { ApiEnv } from "../context.ts";
import { isUnsafeMethod, requireSameOrigin } from "../session/same-origin.ts";
import { clearSessionCookie, sessionFrom, setSessionCookie } from "../session/session-cookie.ts";

const SESSION_ENDED = "the session has ended: sign in again (POST /v1/auth/login)";

export function callerAuth(): MiddlewareHandler<ApiEnv> {
  return async function callerAuth(c, next) {
    // A request with Authorization is judged by it alone: another site cannot make a browser send one.
    if (c.req.header("authorization") !== undefined) {
      const key = bearerToken(c.req.header("authorization"));
      const accountId = key ? apiKeys.ownerOf(key) : null;
      if (!key || !accountId) throw new ApiError("unauthorized", "missing or malformed API key: send Authorization: Bearer <API_KEY>");
      c.set("credential", { token: key, may: [], needs: null, ip: callerIp(c.req.raw) });
      c.set("accountId", accountId);
      return next();
    }
    const session = sessionFrom(c);
    if (!session) throw new ApiError("unauthorized", "send Authorization: Bearer <API_KEY>, or sign in (POST /v1/auth/login) for a session cookie");
    if (isUnsafeMethod(c.req.method)) requireSameOrigin(c);
    const live = await personOf(c.env, session.personId).session(session.token);
    if (!live) {
      clearSessionCookie(c);
      return c.json({ error: "unauthorized", message: SESSION_ENDED }, 401);
    }
    if (live.account_id === null) {
      throw new ApiError("forbidden", "you belong to no account now: ask an account's owner or admin for an invitation, or sign up");
    }
    c.set("credential", { person: live.person, may: [], needs: null, ip: callerIp(c.req.raw) });
    c.set("accountId", live.account_id);
    await next();
    // The browser keeps the cookie as long as the server keeps the session.
    setSessionCookie(c, session.token);
  };
}
