// The per-client-IP budget of /v1/auth/* (AUTH_RATE_LIMIT_PER_MIN, default 10 a minute), apart from
// the general request rate. Like that one it is kept per Worker isolate; the per-email budget, kept
// by the email's own EmailDO, holds across all of them.
import type { MiddlewareHandler } from "hono";
import { AttemptBudget, authAttemptsPerMinute } from "../../../core/attempt-budget.ts";
import { ApiError } from "../../../core/errors.ts";
import { clientIp } from "../../http/rate-limit.ts";
import type { ApiEnv } from "../context.ts";

let budget: AttemptBudget | null = null;

export function authBudget(): MiddlewareHandler<ApiEnv> {
  return async function authBudget(c, next) {
    const perMinute = authAttemptsPerMinute(c.env.AUTH_RATE_LIMIT_PER_MIN);
    if (budget?.perMinute !== perMinute) budget = new AttemptBudget(perMinute);
    const retryAfter = budget.take(clientIp(c.req.raw), Date.now());
    if (retryAfter !== null) {
      throw new ApiError("rate_limited", `more than ${perMinute} sign-up, sign-in or password requests per minute from this address`, {
        "retry-after": String(retryAfter),
      });
    }
    await next();
  };
}
