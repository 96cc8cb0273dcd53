// API keys: `gpk_<account id>_<secret>`. Only a SHA-256 of each key is stored; checks compare in
// constant time against every live key. The AccountDO is the authority: the MachineDOs that admit
// proxied requests hold the live keys' hashes (key-set.ts), and a revocation is answered only once
// they all have the new set, so it takes effect on the very next request everywhere.
import { addColumnIfMissing } from "../../add-column.ts";
import { constantTimeEqual, sha256Hex } from "../../../core/hash.ts";
import { apiKeys, keyPrefix } from "../../../core/credentials.ts";
import { newKeyId } from "../../../core/ids.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import type { KeyRights } from "../../contracts/api-keys.ts";
import { LAST_USED_RESOLUTION_MS } from "../../contracts/credential-lifetimes.ts";
import type { KeyScopes } from "../../contracts/scopes.ts";
import type { Sql } from "../../sql.ts";
import { recordAudit } from "../audit/audit-log.ts";

export const MAX_LIVE_KEYS = 50;

/**
 * What a key holds (KeyRights), as stored since scoped keys: its scopes, its instances (a JSON list;
 * null: every one) and its expiry (null: never); a key from before holds `*`, every instance, forever.
 * And its monthly limit (null: none), which the budgets enforce (money/budgets.ts).
 */
export function addKeyRightsColumns(sql: Sql): void {
  addColumnIfMissing(sql, "api_keys", "scopes", `TEXT NOT NULL DEFAULT '["*"]'`);
  addColumnIfMissing(sql, "api_keys", "instance_ids", "TEXT");
  addColumnIfMissing(sql, "api_keys", "expires_at", "TEXT");
  addColumnIfMissing(sql, "api_keys", "monthly_limit_micros", "INTEGER");
}

export interface KeySummary extends KeyRights {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

/** A key's stored rights columns (JSON lists) as KeyRights. */
interface RightsRow {
  scopes: string;
  instance_ids: string | null;
  expires_at: string | null;
  monthly_limit_micros: number | null;
}

export const rightsOf = (row: RightsRow): KeyRights => ({
  scopes: JSON.parse(row.scopes) as KeyScopes,
  instance_ids: row.instance_ids === null ? null : (JSON.parse(row.instance_ids) as string[]),
  expires_at: row.expires_at,
  monthly_limit_micros: row.monthly_limit_micros,
});

export function liveKeyCount(sql: Sql): number {
  const [row] = sql<{ n: number }>`SELECT COUNT(*) AS n FROM api_keys WHERE revoked_at IS NULL`;
  return row?.n ?? 0;
}

export type CreatedKey = Omit<KeySummary, "last_used_at"> & { key: string };

/** What a new key is made with, its request checked (key-rights.ts). */
export type NewKey = KeyRights & { name: string };

/** A new key made by member `createdBy` (null: none, it acts as an owner), unless the account already holds MAX_LIVE_KEYS live ones. */
export async function createKey(sql: Sql, accountId: string, made: NewKey, at: string, createdBy: string | null): Promise<CreatedKey | Failure> {
  const key = apiKeys.issue(accountId);
  const hash = await sha256Hex(key);
  // From here on synchronous: two creates cannot both pass the count and insert the 51st.
  if (liveKeyCount(sql) >= MAX_LIVE_KEYS) return fail("conflict", `an account may hold at most ${MAX_LIVE_KEYS} live keys`);
  const id = newKeyId();
  const prefix = keyPrefix(key);
  const instanceIds = made.instance_ids === null ? null : JSON.stringify(made.instance_ids);
  sql`INSERT INTO api_keys (id, name, prefix, hash, created_at, created_by, scopes, instance_ids, expires_at, monthly_limit_micros)
      VALUES (${id}, ${made.name}, ${prefix}, ${hash}, ${at}, ${createdBy}, ${JSON.stringify(made.scopes)}, ${instanceIds}, ${made.expires_at}, ${made.monthly_limit_micros})`;
  recordAudit(sql, { action: "key.create", target: { type: "key", id }, detail: `"${made.name}" (${prefix}), scopes ${made.scopes.join(" ")}` });
  return { id, key, prefix, created_at: at, ...made };
}

/** The live keys, expired ones included (they are shown until revoked, their expiry saying why they fail). */
export function listKeys(sql: Sql): KeySummary[] {
  return sql<Omit<KeySummary, keyof KeyRights> & RightsRow>`SELECT id, name, prefix, created_at, last_used_at, scopes, instance_ids, expires_at, monthly_limit_micros
      FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at, id`.map((row) => ({ ...row, ...rightsOf(row) }));
}

export function revokeKey(sql: Sql, keyId: string, at: string): boolean {
  const [revoked] = sql<{ name: string; prefix: string }>`UPDATE api_keys SET revoked_at = ${at}
                                   WHERE id = ${keyId} AND revoked_at IS NULL RETURNING name, prefix`;
  if (revoked) recordAudit(sql, { action: "key.revoke", target: { type: "key", id: keyId }, detail: `"${revoked.name}" (${revoked.prefix})` });
  return revoked !== undefined;
}

/** The SHA-256 of key `keyId`, revoked or not; null when the account has no such key. */
export function hashOfKey(sql: Sql, keyId: string): string | null {
  return sql<{ hash: string }>`SELECT hash FROM api_keys WHERE id = ${keyId}`[0]?.hash ?? null;
}

export function isRevoked(sql: Sql, keyId: string): boolean {
  return sql`SELECT 1 FROM api_keys WHERE id = ${keyId} AND revoked_at IS NOT NULL`.length > 0;
}

type LiveKeyRow = RightsRow & { id: string; hash: string; last_used_at: string | null };

/**
 * The rights of the (not revoked) key matching `keyHash`, or null. Its use is recorded (to the minute)
 * unless it has expired at `at`: the caller tells an expired key by its `expires_at`.
 */
export function findLiveKey(sql: Sql, keyHash: string, at: string): KeyRights | null {
  let matched: LiveKeyRow | null = null;
  for (const row of sql<LiveKeyRow>`SELECT id, hash, last_used_at, scopes, instance_ids, expires_at, monthly_limit_micros FROM api_keys WHERE revoked_at IS NULL`) {
    if (constantTimeEqual(row.hash, keyHash)) matched = row;
  }
  if (matched === null) return null;
  const expired = matched.expires_at !== null && Date.parse(at) >= Date.parse(matched.expires_at);
  if (!expired && (matched.last_used_at === null || Date.parse(at) - Date.parse(matched.last_used_at) >= LAST_USED_RESOLUTION_MS)) {
    sql`UPDATE api_keys SET last_used_at = ${at} WHERE id = ${matched.id}`;
  }
  return rightsOf(matched);
}

/** A use a MachineDO saw on the proxy (reported at most once a minute per key): moves last_used_at forward. */
export function recordKeyUse(sql: Sql, keyHash: string, at: string): void {
  for (const row of sql<{ id: string; hash: string; last_used_at: string | null }>`SELECT id, hash, last_used_at FROM api_keys WHERE revoked_at IS NULL`) {
    if (constantTimeEqual(row.hash, keyHash) && (row.last_used_at === null || row.last_used_at < at)) {
      sql`UPDATE api_keys SET last_used_at = ${at} WHERE id = ${row.id}`;
    }
  }
}
