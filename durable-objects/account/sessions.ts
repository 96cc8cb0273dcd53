// Browser sessions: `gps_<account id>_<secret>`, sent as the `gpr_session` cookie. Only a SHA-256
// of each is stored. A session ends when revoked (sign-out, sign-out everywhere, a password change
// elsewhere), after 30 days without use, and 90 days after it began whatever its use; its use is recorded at most once a minute, as an API key's is, so a request
// does not pay a storage write. The AccountDO is the authority for which sessions are live; a revoked
// session's end reaches the hosts of the account, which end the terminals, log streams and web apps it
// opened (credential-ends.ts).
import { sessionTokens } from "../../core/credentials.ts";
import { constantTimeEqual, sha256Hex } from "../../core/hash.ts";
import { iso } from "../../core/clock.ts";
import { randomBase32 } from "../../core/ids.ts";
import type { Sql } from "../sql.ts";
import { LAST_USED_RESOLUTION_MS, SESSION_IDLE_MS, SESSION_MAX_AGE_MS } from "../contracts/credential-lifetimes.ts";

/** A new session's token (shown to the client once) and its hash (all that is stored). */
export async function newSessionToken(accountId: string): Promise<{ token: string; hash: string }> {
  const token = sessionTokens.issue(accountId);
  return { token, hash: await sha256Hex(token) };
}

/** Stores a session (synchronous, so it can join a transaction) and forgets sessions that have ended. */
export function insertSession(sql: Sql, tokenHash: string, nowMs: number): void {
  sql`DELETE FROM sessions WHERE last_used_ms <= ${nowMs - SESSION_IDLE_MS}`;
  sql`INSERT INTO sessions (id, hash, created_at, last_used_ms) VALUES (${`ses-${randomBase32(12)}`}, ${tokenHash}, ${iso(nowMs)}, ${nowMs})`;
}

/**
 * The id of the live session `tokenHash` belongs to, recording its use; null when there is none.
 * Looked up by hash: the hash of a 160-bit random secret gives a timing observer nothing to work
 * towards, and the stored value is compared in constant time as well.
 */
export function findLiveSession(sql: Sql, tokenHash: string, nowMs: number): string | null {
  const [row] = sql<{ id: string; hash: string; created_at: string; last_used_ms: number }>`
    SELECT id, hash, created_at, last_used_ms FROM sessions WHERE hash = ${tokenHash}`;
  if (!row || !constantTimeEqual(row.hash, tokenHash)) return null;
  if (nowMs - row.last_used_ms >= SESSION_IDLE_MS || nowMs - Date.parse(row.created_at) >= SESSION_MAX_AGE_MS) {
    sql`DELETE FROM sessions WHERE id = ${row.id}`;
    return null;
  }
  if (nowMs - row.last_used_ms >= LAST_USED_RESOLUTION_MS) sql`UPDATE sessions SET last_used_ms = ${nowMs} WHERE id = ${row.id}`;
  return row.id;
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
