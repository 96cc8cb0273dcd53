// Which members' roles may call each /v1 route for a key or a session, and which scope it needs of a
// key: the one table (two maps with the same keys). A route declared
// with callerRoute takes its rule from here (a route missing from it fails at load), checks it on every
// call through the account (the AccountDO, the authority for roles, refuses with 403 forbidden), and
// shows it in the OpenAPI document as the operation's `x-roles`. An API key acts with the role of the
// member who made it.
import type { ScopeRoles } from "../../../durable-objects/contracts/api-keys.ts";
import { INSTANCE_USE_ROLES, ROLES, type Role } from "../../../durable-objects/contracts/members.ts";
import { SCOPES, type Scope } from "../../../durable-objects/contracts/scopes.ts";

/** Reading the account: instances, volumes' listings, the ledger, logs and metrics, the members. */
const ANYONE: readonly Role[] = ["owner", "admin", "developer", "billing", "viewer"];
/** Working with instances and volumes, what is in them (files, web apps), and one's own keys. */
const WORKERS = INSTANCE_USE_ROLES;
/** Money: payments and the account's spending settings. */
const PAYERS: readonly Role[] = ["owner", "admin", "billing"];
/** The account's people and the account's own settings. */
const MANAGERS: readonly Role[] = ["owner", "admin"];
/** Who did what: the audit log (GET /audit-log). */
export const AUDITORS: readonly Role[] = ["owner", "admin", "billing"];

export const ROUTE_ROLES: Readonly<Record<string, readonly Role[]>> = {
  "GET /me": ANYONE,
  "GET /gpus": ANYONE,
  "GET /catalog": ANYONE,
  "PATCH /account": PAYERS,

  "POST /instances": WORKERS,
  "GET /instances": ANYONE,
  "GET /instances/{id}": ANYONE,
  "PATCH /instances/{id}": WORKERS,
  "GET /instances/{id}/events": ANYONE,
  "POST /instances/{id}/stop": WORKERS,
  "POST /instances/{id}/start": WORKERS,
  "DELETE /instances/{id}": WORKERS,
  "GET /instances/{id}/logs": ANYONE,
  "GET /instances/{id}/metrics": ANYONE,
  "GET /metrics": ANYONE,
  "GET /instances/{id}/files": WORKERS,
  "PUT /instances/{id}/files": WORKERS,
  "POST /instances/{id}/ports/{port}/open": WORKERS,

  "GET /volumes": ANYONE,
  "POST /volumes": WORKERS,
  "GET /volumes/{id}": ANYONE,
  "PATCH /volumes/{id}": WORKERS,
  "DELETE /volumes/{id}": WORKERS,
  "POST /volumes/{id}/save": WORKERS,
  "GET /volumes/{id}/snapshots": ANYONE,
  "POST /volumes/{id}/snapshots": WORKERS,
  "DELETE /volumes/{id}/snapshots/{snapshot_id}": WORKERS,
  "GET /volumes/{id}/files": WORKERS,
  "PUT /volumes/{id}/files": WORKERS,

  "GET /keys": ANYONE,
  "POST /keys": WORKERS,
  "DELETE /keys/{id}": WORKERS,
  "GET /ssh-keys": ANYONE,
  "POST /ssh-keys": WORKERS,
  "DELETE /ssh-keys/{id}": WORKERS,

  "GET /billing/ledger": ANYONE,
  "GET /billing/usage": ANYONE,
  "GET /billing/config": ANYONE,
  "POST /billing/checkout": PAYERS,

  "GET /audit-log": AUDITORS,

  "GET /webhooks": ANYONE,
  "POST /webhooks": MANAGERS,
  "PATCH /webhooks/{id}": MANAGERS,
  "DELETE /webhooks/{id}": MANAGERS,
  "POST /webhooks/{id}/rotate-secret": MANAGERS,
  "POST /webhooks/{id}/test": MANAGERS,
  "GET /webhooks/{id}/deliveries": ANYONE,
  "POST /webhooks/{id}/deliveries/{delivery_id}/retry": MANAGERS,

  "GET /members": ANYONE,
  "PATCH /members/{user_id}": MANAGERS,
  "DELETE /members/{user_id}": MANAGERS,
  "GET /members/invitations": MANAGERS,
  "POST /members/invitations": MANAGERS,
  "DELETE /members/invitations/{id}": MANAGERS,
};

/**
 * The scope each route needs of an API key (contracts/scopes.ts), for the same routes as ROUTE_ROLES;
 * null: any live key. PATCH /account needs billing:write (the balance alert, the budget) and, when it
 * renames the account, account:write too (checked by the route).
 */
export const ROUTE_SCOPES: Readonly<Record<string, Scope | null>> = {
  "GET /me": null,
  "GET /gpus": "instances:read",
  "GET /catalog": "instances:read",
  "PATCH /account": "billing:write",

  "POST /instances": "instances:write",
  "GET /instances": "instances:read",
  "GET /instances/{id}": "instances:read",
  "PATCH /instances/{id}": "instances:write",
  "GET /instances/{id}/events": "instances:read",
  "POST /instances/{id}/stop": "instances:write",
  "POST /instances/{id}/start": "instances:write",
  "DELETE /instances/{id}": "instances:write",
  "GET /instances/{id}/logs": "instances:read",
  "GET /instances/{id}/metrics": "instances:read",
  "GET /metrics": "instances:read",
  "GET /instances/{id}/files": "instances:use",
  "PUT /instances/{id}/files": "instances:use",
  "POST /instances/{id}/ports/{port}/open": "instances:use",

  "GET /volumes": "volumes:read",
  "POST /volumes": "volumes:write",
  "GET /volumes/{id}": "volumes:read",
  "PATCH /volumes/{id}": "volumes:write",
  "DELETE /volumes/{id}": "volumes:write",
  "POST /volumes/{id}/save": "volumes:write",
  "GET /volumes/{id}/snapshots": "volumes:read",
  "POST /volumes/{id}/snapshots": "volumes:write",
  "DELETE /volumes/{id}/snapshots/{snapshot_id}": "volumes:write",
  "GET /volumes/{id}/files": "volumes:read",
  "PUT /volumes/{id}/files": "volumes:write",

  "GET /keys": "account:read",
  "POST /keys": "account:write",
  "DELETE /keys/{id}": "account:write",
  "GET /ssh-keys": "account:read",
  "POST /ssh-keys": "account:write",
  "DELETE /ssh-keys/{id}": "account:write",

  "GET /billing/ledger": "billing:read",
  "GET /billing/usage": "billing:read",
  "GET /billing/config": "billing:read",
  "POST /billing/checkout": "billing:write",

  "GET /audit-log": "account:read",

  "GET /webhooks": "account:read",
  "POST /webhooks": "account:write",
  "PATCH /webhooks/{id}": "account:write",
  "DELETE /webhooks/{id}": "account:write",
  "POST /webhooks/{id}/rotate-secret": "account:write",
  "POST /webhooks/{id}/test": "account:write",
  "GET /webhooks/{id}/deliveries": "account:read",
  "POST /webhooks/{id}/deliveries/{delivery_id}/retry": "account:write",

  "GET /members": "account:read",
  "PATCH /members/{user_id}": "account:write",
  "DELETE /members/{user_id}": "account:write",
  "GET /members/invitations": "account:read",
  "POST /members/invitations": "account:write",
  "DELETE /members/invitations/{id}": "account:write",
};

/**
 * Per scope, the roles that may call at least one route needing exactly it: a key is its maker's role ∩
 * its scopes, so a scope outside this is refused at the key's making (a developer's billing:write).
 */
export const SCOPE_ROLES: ScopeRoles = rolesPerScope();

function rolesPerScope(): ScopeRoles {
  const table = {} as Record<Scope, readonly Role[]>;
  for (const scope of SCOPES) {
    const routes = Object.keys(ROUTE_SCOPES).filter((route) => ROUTE_SCOPES[route] === scope);
    table[scope] = ROLES.filter((role) => routes.some((route) => ROUTE_ROLES[route]!.includes(role)));
  }
  return table;
}

/** The scope `method path` needs of an API key; throws for a route the table lacks. */
export function scopeOf(method: string, path: string): Scope | null {
  const scope = ROUTE_SCOPES[`${method.toUpperCase()} ${path}`];
  if (scope === undefined) throw new Error(`no scope rule for ${method.toUpperCase()} /v1${path}: add it to workers/api/roles/route-roles.ts`);
  return scope;
}

/** The roles that may call `method path` (path as declared, under /v1); throws for a route the table lacks. */
export function rolesOf(method: string, path: string): readonly Role[] {
  const roles = ROUTE_ROLES[`${method.toUpperCase()} ${path}`];
  if (!roles) throw new Error(`no role rule for ${method.toUpperCase()} /v1${path}: add it to workers/api/roles/route-roles.ts`);
  return roles;
}
