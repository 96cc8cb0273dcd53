// How a /v1 route for an API key or a session is declared: the security, the roles that may call it
// (roles/route-roles.ts) and the errors every such route can give are added here, so each declaration
// states only what is its own.
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { Role } from "../../../durable-objects/contracts/members.ts";
import type { ApiEnv } from "../context.ts";
import type { Scope } from "../../../durable-objects/contracts/scopes.ts";
import { rolesOf, scopeOf } from "../roles/route-roles.ts";
import { errors, type ErrorStatus } from "../schemas/common.ts";

/** Who may call a /v1 route: an API key, or a signed-in browser with its session cookie. */
const callerSecurity: Record<string, string[]>[] = [{ bearerAuth: [] }, { sessionCookie: [] }];

/**
 * A route a key or a session may call, if its member's role is one the table names. Besides `ownErrors`
 * it can give 401 (the credential), 403 (the role; and a session's change must come from this
 * service's pages) and 429. A status the route describes itself keeps the route's description.
 */
export function callerRoute<P extends string, R extends Omit<RouteConfig, "path" | "security"> & { path: P }>(
  ownErrors: Exclude<ErrorStatus, 401 | 403 | 429>[],
  route: R,
) {
  const roles = rolesOf(route.method, route.path);
  const needs = scopeOf(route.method, route.path);
  const scopeLine = needs === null ? "Any API key's scopes." : `An API key needs the scope ${needs}.`;
  const description = `${route.description ?? ""}${route.description ? "\n\n" : ""}Roles that may: ${roles.join(", ")}. ${scopeLine}`;
  return createRoute({
    security: callerSecurity,
    ...route,
    description,
    "x-roles": roles,
    "x-scope": needs,
    middleware: [mayCall(roles, needs)],
    responses: { ...errors(401, 403, ...ownErrors), ...route.responses },
  });
}

/** Hands the route's roles and scope to the account with the credential, which checks them on the same call. */
function mayCall(roles: readonly Role[], needs: Scope | null): MiddlewareHandler<ApiEnv> {
  return async function mayCall(c, next) {
    c.set("credential", { ...c.var.credential, may: roles, needs });
    await next();
  };
}
