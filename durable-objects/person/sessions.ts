// A person's browser sessions: `gps_<user id>_<secret>`, sent as the `gpr_session` cookie; only a
// SHA-256 of each is stored, with the account the session acts on now. A session ends when revoked
// (sign-out, sign-out everywhere, a password change elsewhere), after 30 days without use, and 90 days
// after it began whatever its use; its use is recorded at most once a minute, as an API key's is, so a
// request does not pay a storage write. This object is the authority for which sessions are live; the
// accounts are told which ended, and end what they opened on their hosts.
import { sessionTokens } from "../../core/credentials.ts";
import { constantTimeEqual, sha256Hex } from "../../core/hash.ts";
import { iso } from "../../core/clock.ts";
import { randomBase32 } from "../../core/ids.ts";
import type { Sql } from "../sql.ts";
import { LAST_USED_RESOLUTION_MS, SESSION_IDLE_MS, SESSION_MAX_AGE_MS } from "../contracts/credential-lifetimes.ts";

/** A new session's token (shown to the client once) and its hash (all that is stored). */
export async function newSessionToken(userId: string): Promise<{ token: string; hash: string }> {
  const token = sessionTokens.issue(userId);
  return { token, hash: await sha256Hex(token) };
}

/** Stores a session acting on `accountId` (synchronous, so it can join a transaction) and forgets sessions that have ended. */
export function insertSession(sql: Sql, tokenHash: string, nowMs: number, accountId: string | null): void {
  sql`DELETE FROM sessions WHERE last_used_ms <= ${nowMs - SESSION_IDLE_MS}`;
  sql`INSERT INTO sessions (id, hash, created_at, last_used_ms, account_id)
      VALUES (${`ses-${randomBase32(12)}`}, ${tokenHash}, ${iso(nowMs)}, ${nowMs}, ${accountId})`;
}

/**
 * The live session `tokenHash` belongs to, recording its use; null when there is none. Looked up by
 * hash: the hash of a 160-bit random secret gives a timing observer nothing to work towards, and the
 * stored value is compared in constant time as well.
 */
export function findLiveSession(sql: Sql, tokenHash: string, nowMs: number): { id: string; account_id: string | null } | null {
  const [row] = sql<{ id: string; hash: string; created_at: string; last_used_ms: number; account_id: string | null }>`
    SELECT id, hash, created_at, last_used_ms, account_id FROM sessions WHERE hash = ${tokenHash}`;
  if (!row || !constantTimeEqual(row.hash, tokenHash)) return null;
  if (nowMs - row.last_used_ms >= SESSION_IDLE_MS || nowMs - Date.parse(row.created_at) >= SESSION_MAX_AGE_MS) {
    sql`DELETE FROM sessions WHERE id = ${row.id}`;
    return null;
  }
  if (nowMs - row.last_used_ms >= LAST_USED_RESOLUTION_MS) sql`UPDATE sessions SET last_used_ms = ${nowMs} WHERE id = ${row.id}`;
  return { id: row.id, account_id: row.account_id };
}

/** The ids of the sessions revoked: `sessionId`, or none when it had ended already. */
export function revokeSession(sql: Sql, sessionId: string): string[] {
  return sql<{ id: string }>`DELETE FROM sessions WHERE id = ${sessionId} RETURNING id`.map((row) => row.id);
}

/** The ids of the sessions revoked. */
export function revokeAllSessions(sql: Sql): string[] {
  return sql<{ id: string }>`DELETE FROM sessions RETURNING id`.map((row) => row.id);
}

/** The ids of the sessions revoked. */
export function revokeOtherSessions(sql: Sql, keepSessionId: string): string[] {
  return sql<{ id: string }>`DELETE FROM sessions WHERE id != ${keepSessionId} RETURNING id`.map((row) => row.id);
}
