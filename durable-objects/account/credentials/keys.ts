// API keys: `gpk_<account id>_<secret>`. Only a SHA-256 of each key is stored; checks compare in
// constant time against every live key. The AccountDO is the authority: the MachineDOs that admit
// proxied requests hold the live keys' hashes (key-set.ts), and a revocation is answered only once
// they all have the new set, so it takes effect on the very next request everywhere.
import { constantTimeEqual, sha256Hex } from "../../../core/hash.ts";
import { apiKeys, keyPrefix } from "../../../core/credentials.ts";
import { newKeyId } from "../../../core/ids.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import { LAST_USED_RESOLUTION_MS } from "../../contracts/credential-lifetimes.ts";
import type { Sql } from "../../sql.ts";

export const MAX_LIVE_KEYS = 50;

export interface KeySummary {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

export function liveKeyCount(sql: Sql): number {
  const [row] = sql<{ n: number }>`SELECT COUNT(*) AS n FROM api_keys WHERE revoked_at IS NULL`;
  return row?.n ?? 0;
}

export interface CreatedKey {
  id: string;
  key: string;
  name: string;
  prefix: string;
  created_at: string;
}

/** A new key made by member `createdBy` (null: none, it acts as an owner), unless the account already holds MAX_LIVE_KEYS live ones. */
export async function createKey(sql: Sql, accountId: string, name: string, at: string, createdBy: string | null): Promise<CreatedKey | Failure> {
  const key = apiKeys.issue(accountId);
  const hash = await sha256Hex(key);
  // From here on synchronous: two creates cannot both pass the count and insert the 51st.
  if (liveKeyCount(sql) >= MAX_LIVE_KEYS) return fail("conflict", `an account may hold at most ${MAX_LIVE_KEYS} live keys`);
  const id = newKeyId();
  const prefix = keyPrefix(key);
  sql`INSERT INTO api_keys (id, name, prefix, hash, created_at, created_by) VALUES (${id}, ${name}, ${prefix}, ${hash}, ${at}, ${createdBy})`;
  return { id, key, name, prefix, created_at: at };
}

export function listKeys(sql: Sql): KeySummary[] {
  return sql<KeySummary>`SELECT id, name, prefix, created_at, last_used_at FROM api_keys
                         WHERE revoked_at IS NULL ORDER BY created_at, id`;
}

export function revokeKey(sql: Sql, keyId: string, at: string): boolean {
  const rows = sql<{ id: string }>`UPDATE api_keys SET revoked_at = ${at}
                                   WHERE id = ${keyId} AND revoked_at IS NULL RETURNING id`;
  return rows.length > 0;
}

export function isRevoked(sql: Sql, keyId: string): boolean {
  return sql`SELECT 1 FROM api_keys WHERE id = ${keyId} AND revoked_at IS NOT NULL`.length > 0;
}

/** Finds the live key matching `key`, records its use (to the minute), and says whether it matched. */
export function findLiveKey(sql: Sql, keyHash: string, at: string): boolean {
  let matched: { id: string; last_used_at: string | null } | null = null;
  for (const row of sql<{ id: string; hash: string; last_used_at: string | null }>`SELECT id, hash, last_used_at FROM api_keys WHERE revoked_at IS NULL`) {
    if (constantTimeEqual(row.hash, keyHash)) matched = row;
  }
  if (matched === null) return false;
  if (matched.last_used_at === null || Date.parse(at) - Date.parse(matched.last_used_at) >= LAST_USED_RESOLUTION_MS) {
    sql`UPDATE api_keys SET last_used_at = ${at} WHERE id = ${matched.id}`;
  }
  return true;
}

/** A use a MachineDO saw on the proxy (reported at most once a minute per key): moves last_used_at forward. */
export function recordKeyUse(sql: Sql, keyHash: string, at: string): void {
  for (const row of sql<{ id: string; hash: string; last_used_at: string | null }>`SELECT id, hash, last_used_at FROM api_keys WHERE revoked_at IS NULL`) {
    if (constantTimeEqual(row.hash, keyHash) && (row.last_used_at === null || row.last_used_at < at)) {
      sql`UPDATE api_keys SET last_used_at = ${at} WHERE id = ${row.id}`;
    }
  }
}
