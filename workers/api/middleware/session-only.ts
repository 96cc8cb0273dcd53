// Routes only a signed-in browser may call (changing the password): the session cookie and nothing
// else (an API key cannot), from this service's own pages.
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";
import { requireSameOrigin } from "../session/same-origin.ts";
import { sessionFrom } from "../session/session-cookie.ts";

export function sessionOnly(): MiddlewareHandler<ApiEnv> {
  return async function sessionOnly(c, next) {
    const session = sessionFrom(c);
    if (!session) throw new ApiError("unauthorized", "changing the password needs a signed-in session (the gpr_session cookie), not an API key");
    requireSameOrigin(c);
    c.set("credential", { token: session.token, may: [] });
    c.set("accountId", session.accountId);
    await next();
  };
}
