// An API key as it is asked for and shown: its scopes (contracts/scopes.ts), the instances it is kept
// to, when it expires and its monthly limit. The Worker checks the shape of a request; the AccountDO
// checks what needs the account and its clock (an expiry in the future, instances it holds, the
// maker's role and key) on the same call as it makes the key.
import type { Role } from "./members.ts";
import type { KeyScopes, Scope } from "./scopes.ts";

/** A key reaches at most this many instances by id. */
export const MAX_KEY_INSTANCES = 50;
/** A key expires at most this long after it is made. */
export const MAX_KEY_LIFETIME_MS = 365 * 24 * 3_600_000;

/** POST /v1/keys' body, as the AccountDO takes it; each left out takes its default (or the calling key's: a key made with a key). */
export interface KeyRequest {
  name: string;
  scopes?: KeyScopes;
  /** null: every instance of the account. */
  instance_ids?: string[] | null;
  /** ISO time; null: never. */
  expires_at?: string | null;
  /** The spend of the instances the key launches, per UTC month (null: none). */
  monthly_limit_micros?: number | null;
}

/** What a key holds besides its maker's role, and the most its launches may spend a month (null: no limit). */
export interface KeyRights {
  scopes: KeyScopes;
  instance_ids: string[] | null;
  expires_at: string | null;
  monthly_limit_micros: number | null;
}

/** Per scope, the roles that may call at least one route needing exactly that scope (from the Worker's route table). */
export type ScopeRoles = Readonly<Record<Scope, readonly Role[]>>;
