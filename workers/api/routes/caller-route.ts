// How a /v1 route for an API key or a session is declared: the security and the errors every such
// route can give are added here, so each declaration states only what is its own.
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import { errors, type ErrorStatus } from "../schemas/common.ts";
import { isUnsafeMethod } from "../session/same-origin.ts";

/** Who may call a /v1 route: an API key, or a signed-in browser with its session cookie. */
const callerSecurity: Record<string, string[]>[] = [{ bearerAuth: [] }, { sessionCookie: [] }];

/**
 * A route any key or session may call. Besides `ownErrors` it can give 401 (the credential), 429,
 * and, when it changes something, 403 (a session's request must come from this service's pages).
 * A status the route describes itself keeps the route's description.
 */
export function callerRoute<P extends string, R extends Omit<RouteConfig, "path" | "security"> & { path: P }>(
  ownErrors: Exclude<ErrorStatus, 401 | 403 | 429>[],
  route: R,
) {
  const originRule = isUnsafeMethod(route.method) ? [403 as const] : [];
  return createRoute({ security: callerSecurity, ...route, responses: { ...errors(401, ...originRule, ...ownErrors), ...route.responses } });
}
