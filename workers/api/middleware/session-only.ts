// Routes only a signed-in browser may call (the password, the switch between accounts): the session
// cookie and nothing else (an API key cannot), from this service's own pages. The session itself is
// checked by the person's PersonDO as the route calls it.
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../../core/errors.ts";
import type { ApiEnv } from "../context.ts";
import { requireSameOrigin } from "../session/same-origin.ts";
import { sessionFrom } from "../session/session-cookie.ts";

export function sessionOnly(): MiddlewareHandler<ApiEnv> {
  return async function sessionOnly(c, next) {
    const session = sessionFrom(c);
    if (!session) throw new ApiError("unauthorized", "this needs a signed-in session (the gpr_session cookie), not an API key");
    requireSameOrigin(c);
    c.set("session", session);
    await next();
  };
}
