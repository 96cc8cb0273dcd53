// API keys as the account's members make them: a key acts with the role of the member who made it
// (`api_keys.created_by`), whatever that role is now, so a demotion holds for their keys from the next
// call on; a key made before teams or by the operator has no maker and acts as an owner. A key made
// with a key has that key's maker. A member's keys end with the membership.
import { INSTANCE_USE_ROLES, type Role } from "../../contracts/members.ts";
import type { LimitedKey } from "../../contracts/object-messages.ts";
import { grants, type KeyScopes } from "../../contracts/scopes.ts";
import type { Sql } from "../../sql.ts";
import type { Caller } from "../credentials/credential-check.ts";

/** The role live key `keySha256` acts with; null when there is no such key, or its maker is no member any more. */
export function keyRole(sql: Sql, keySha256: string): Role | null {
  const [row] = sql<{ created_by: string | null; role: Role | null }>`SELECT api_keys.created_by, members.role FROM api_keys
    LEFT JOIN members ON members.user_id = api_keys.created_by WHERE api_keys.hash = ${keySha256} AND api_keys.revoked_at IS NULL`;
  if (!row) return null;
  return row.created_by === null ? "owner" : row.role;
}

/** Whom a key made by `caller` is made by: the person, or the maker of the key calling; null for none (acts as an owner). */
export function makerOf(sql: Sql, caller: Caller): string | null {
  if (caller.kind === "person") return caller.userId;
  if (caller.kind === "key") return sql<{ created_by: string | null }>`SELECT created_by FROM api_keys WHERE hash = ${caller.keySha256}`[0]?.created_by ?? null;
  return null;
}

/** Whether `caller` may revoke key `keyId`: anyone the route admits, but a developer only the keys they made. */
export function mayRevoke(sql: Sql, caller: Caller, keyId: string): boolean {
  if (caller.role !== "developer") return true;
  const [key] = sql<{ created_by: string | null }>`SELECT created_by FROM api_keys WHERE id = ${keyId}`;
  return key === undefined || (key.created_by !== null && key.created_by === makerOf(sql, caller));
}

/** Revokes the live keys `userId` made; how many. */
/** The hashes of the live keys `userId` made, now revoked. */
export function revokeKeysOf(sql: Sql, userId: string, at: string): string[] {
  return sql<{ hash: string }>`UPDATE api_keys SET revoked_at = ${at} WHERE created_by = ${userId} AND revoked_at IS NULL RETURNING hash`.map((row) => row.hash);
}

/** Whether `userId` made a live key. */
export function hasLiveKeys(sql: Sql, userId: string): boolean {
  return sql`SELECT 1 FROM api_keys WHERE created_by = ${userId} AND revoked_at IS NULL`.length > 0;
}

/**
 * The live, unexpired keys that may use instances of the account (their maker's role is in
 * INSTANCE_USE_ROLES, their scopes grant instances:use): the proxy's key set (key-set.ts). `hashes`:
 * those kept to no instances and never expiring; `limited`: the others, with what limits them, which
 * the hosts check as the account does. An expiring key leaves the set when it expires (key-expiry.ts).
 */
export function instanceUseKeys(sql: Sql, nowIso: string): { hashes: string[]; limited: LimitedKey[] } {
  const rows = sql<{ hash: string; scopes: string; instance_ids: string | null; expires_at: string | null }>`
    SELECT api_keys.hash, api_keys.scopes, api_keys.instance_ids, api_keys.expires_at FROM api_keys LEFT JOIN members ON members.user_id = api_keys.created_by
    WHERE api_keys.revoked_at IS NULL AND (api_keys.expires_at IS NULL OR api_keys.expires_at > ${nowIso})
      AND (api_keys.created_by IS NULL OR members.role IN (SELECT value FROM json_each(${JSON.stringify(INSTANCE_USE_ROLES)})))
    ORDER BY api_keys.hash`
    .filter((row) => grants(JSON.parse(row.scopes) as KeyScopes, "instances:use"));
  const limits = (row: (typeof rows)[number]) => row.instance_ids !== null || row.expires_at !== null;
  return {
    hashes: rows.filter((row) => !limits(row)).map((row) => row.hash),
    limited: rows.filter(limits).map((row) => ({
      hash: row.hash,
      instance_ids: row.instance_ids === null ? null : (JSON.parse(row.instance_ids) as string[]),
      expires_ms: row.expires_at === null ? null : Date.parse(row.expires_at),
    })),
  };
}
