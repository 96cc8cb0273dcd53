// Which members' roles may call each /v1 route for a key or a session: the one table. A route declared
// with callerRoute takes its rule from here (a route missing from it fails at load), checks it on every
// call through the account (the AccountDO, the authority for roles, refuses with 403 forbidden), and
// shows it in the OpenAPI document as the operation's `x-roles`. An API key acts with the role of the
// member who made it.
import { INSTANCE_USE_ROLES, type Role } from "../../../durable-objects/contracts/members.ts";

/** Reading the account: instances, volumes' listings, the ledger, logs and metrics, the members. */
const ANYONE: readonly Role[] = ["owner", "admin", "developer", "billing", "viewer"];
/** Working with instances and volumes, what is in them (files, web apps), and one's own keys. */
const WORKERS = INSTANCE_USE_ROLES;
/** Money: payments and the account's spending settings. */
const PAYERS: readonly Role[] = ["owner", "admin", "billing"];
/** The account's people and the account's own settings. */
const MANAGERS: readonly Role[] = ["owner", "admin"];

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

/** The roles that may call `method path` (path as declared, under /v1); throws for a route the table lacks. */
export function rolesOf(method: string, path: string): readonly Role[] {
  const roles = ROUTE_ROLES[`${method.toUpperCase()} ${path}`];
  if (!roles) throw new Error(`no role rule for ${method.toUpperCase()} /v1${path}: add it to workers/api/roles/route-roles.ts`);
  return roles;
}
