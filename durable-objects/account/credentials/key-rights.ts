// What a new key may hold, checked as it is made: its expiry in the future and at most a year ahead
// on this object's clock, its instances the account's, its scopes within its maker's role (a key's
// rights are the role ∩ its scopes, so a scope none of whose routes the role may call is refused rather
// than held in vain), and a key made with a key never wider than that key (scopes, instances, expiry,
// monthly limit: else a key with a limit could make one without and spend past it). What is left out
// takes the default: all rights, every instance, never, no limit; or the calling key's.
import { iso } from "../../../core/clock.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import { MAX_KEY_LIFETIME_MS, type KeyRequest, type KeyRights, type ScopeRoles } from "../../contracts/api-keys.ts";
import type { Role } from "../../contracts/members.ts";
import { grants, type KeyScopes } from "../../contracts/scopes.ts";
import type { NewKey } from "./keys.ts";

/** Who asks for the key: a member's role and the scope table (null: the operator, any rights), and the key they call with (null: none). */
export interface KeyMaker {
  role: { role: Role; scopeRoles: ScopeRoles } | null;
  key: KeyRights | null;
}

const BEYOND_KEY = "a key made with a key holds at most that key's rights";

/** The key to make, or why not: 400 `invalid` naming the field, 403 `forbidden` naming what is beyond the maker. */
export function checkKeyRequest(request: KeyRequest, maker: KeyMaker, nowMs: number, holdsInstance: (id: string) => boolean): NewKey | Failure {
  const scopes: KeyScopes = request.scopes ?? maker.key?.scopes ?? ["*"];
  const instanceIds = request.instance_ids === undefined ? (maker.key?.instance_ids ?? null) : request.instance_ids;
  const expiresAt = request.expires_at === undefined ? (maker.key?.expires_at ?? null) : request.expires_at;
  const limit = request.monthly_limit_micros === undefined ? (maker.key?.monthly_limit_micros ?? null) : request.monthly_limit_micros;
  const asked = { scopes, instance_ids: instanceIds, expires_at: expiresAt, monthly_limit_micros: limit };
  const refused = expiryRefusal(expiresAt, nowMs) ?? instancesRefusal(instanceIds, holdsInstance) ?? roleRefusal(scopes, maker.role)
    ?? (maker.key ? wideningRefusal(asked, maker.key) : null);
  if (refused) return refused;
  return { ...asked, name: request.name, expires_at: expiresAt === null ? null : iso(Date.parse(expiresAt)) };
}

function expiryRefusal(expiresAt: string | null, nowMs: number): Failure | null {
  if (expiresAt === null) return null;
  const at = Date.parse(expiresAt);
  if (at <= nowMs) return fail("invalid", `expires_at: must be in the future (it is ${iso(nowMs)} now)`);
  if (at > nowMs + MAX_KEY_LIFETIME_MS) return fail("invalid", `expires_at: at most 365 days ahead (${iso(nowMs + MAX_KEY_LIFETIME_MS)})`);
  return null;
}

function instancesRefusal(instanceIds: string[] | null, holdsInstance: (id: string) => boolean): Failure | null {
  const unknown = instanceIds?.find((id) => !holdsInstance(id));
  return unknown === undefined ? null : fail("invalid", `instance_ids: no instance ${unknown} in this account`);
}

function roleRefusal(scopes: KeyScopes, maker: KeyMaker["role"]): Failure | null {
  if (maker === null) return null;
  for (const scope of scopes) {
    if (scope === "*") continue;
    const may = maker.scopeRoles[scope];
    if (!may.includes(maker.role)) {
      return fail("forbidden", `the scope ${scope} is beyond your role (${maker.role}): its routes are for ${may.join(", ")}`);
    }
  }
  return null;
}

function wideningRefusal(asked: KeyRights, key: KeyRights): Failure | null {
  const scope = asked.scopes.find((s) => (s === "*" ? !key.scopes.includes("*") : !grants(key.scopes, s)));
  if (scope !== undefined) return fail("forbidden", `${BEYOND_KEY}: the scope ${scope} is beyond it`);
  if (key.instance_ids !== null) {
    const instance = asked.instance_ids === null ? "every instance" : asked.instance_ids.find((id) => !key.instance_ids!.includes(id));
    if (instance !== undefined) return fail("forbidden", `${BEYOND_KEY}: ${instance === "every instance" ? instance : `the instance ${instance}`} is beyond it`);
  }
  if (key.expires_at !== null && (asked.expires_at === null || Date.parse(asked.expires_at) > Date.parse(key.expires_at))) {
    return fail("forbidden", `${BEYOND_KEY}: it expires at ${key.expires_at}, so must this one`);
  }
  if (key.monthly_limit_micros !== null && (asked.monthly_limit_micros === null || asked.monthly_limit_micros > key.monthly_limit_micros)) {
    return fail("forbidden", `${BEYOND_KEY}: its monthly limit is ${key.monthly_limit_micros} micro-dollars, so this one's must be at most that`);
  }
  return null;
}
