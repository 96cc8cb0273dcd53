// What the signed-in member's role may do here, so that a page offers only that: the API's rule for
// each route the dashboard offers or hides by role, copied from the service's route table, which
// roles.test.ts holds this copy equal to (the dashboard speaks to the service over HTTP alone, so it
// cannot import it). The API refuses anything else anyway, with 403 naming the roles that may.
import type { components } from "../../client/index.ts";

export type Role = components["schemas"]["Me"]["account"]["role"];

/** Every role, the most rights first. */
export const ROLES = ["owner", "admin", "developer", "billing", "viewer"] as const satisfies readonly Role[];

const WORKERS: readonly Role[] = ["owner", "admin", "developer"];
const PAYERS: readonly Role[] = ["owner", "admin", "billing"];
const MANAGERS: readonly Role[] = ["owner", "admin"];
const AUDITORS: readonly Role[] = ["owner", "admin", "billing"];

export const DASHBOARD_ROUTE_ROLES = {
  "POST /instances": WORKERS,
  "PATCH /instances/{id}": WORKERS,
  "POST /instances/{id}/stop": WORKERS,
  "POST /instances/{id}/start": WORKERS,
  "DELETE /instances/{id}": WORKERS,
  "POST /instances/{id}/ports/{port}/open": WORKERS,

  "POST /volumes": WORKERS,
  "PATCH /volumes/{id}": WORKERS,
  "DELETE /volumes/{id}": WORKERS,
  "POST /volumes/{id}/save": WORKERS,
  "POST /volumes/{id}/snapshots": WORKERS,
  "DELETE /volumes/{id}/snapshots/{snapshot_id}": WORKERS,

  "POST /keys": WORKERS,
  "DELETE /keys/{id}": WORKERS,
  "POST /ssh-keys": WORKERS,
  "DELETE /ssh-keys/{id}": WORKERS,

  "POST /billing/checkout": PAYERS,
  "PATCH /account": PAYERS,

  "GET /audit-log": AUDITORS,

  "POST /webhooks": MANAGERS,
  "PATCH /webhooks/{id}": MANAGERS,
  "DELETE /webhooks/{id}": MANAGERS,
  "POST /webhooks/{id}/test": MANAGERS,

  "PATCH /members/{user_id}": MANAGERS,
  "DELETE /members/{user_id}": MANAGERS,
  "POST /members/invitations": MANAGERS,
  "DELETE /members/invitations/{id}": MANAGERS,
} as const satisfies Record<string, readonly Role[]>;

/** A route the dashboard shows or hides by role, as the route table names it (`METHOD /path`, under /v1). */
export type GuardedRoute = keyof typeof DASHBOARD_ROUTE_ROLES;

/** The shell in the browser (the terminal), which no route of the table holds: the roles that reach an instance's insides. */
export const SHELL_ROLES: readonly Role[] = WORKERS;

export const mayCall = (role: Role, route: GuardedRoute): boolean => DASHBOARD_ROUTE_ROLES[route].includes(role);

