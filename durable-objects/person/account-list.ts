// The accounts a person belongs to, as this object last heard (which AccountDOs to ask: each account
// is the authority for its members and their roles), and the account each session acts on now.
import type { Sql } from "../sql.ts";

export function createAccountListSchema(sql: Sql): void {
  sql`CREATE TABLE IF NOT EXISTS accounts (account_id TEXT PRIMARY KEY, joined_at TEXT NOT NULL)`;
}

/** Synchronous, so it joins the transaction that makes the person or moves a session. */
export function listAccount(sql: Sql, accountId: string, at: string): void {
  sql`INSERT OR IGNORE INTO accounts (account_id, joined_at) VALUES (${accountId}, ${at})`;
}

/** The person's accounts, in the order they joined. */
export function listedAccounts(sql: Sql): string[] {
  return sql<{ account_id: string }>`SELECT account_id FROM accounts ORDER BY joined_at, account_id`.map((row) => row.account_id);
}

export function actOn(sql: Sql, sessionId: string, accountId: string): void {
  sql`UPDATE sessions SET account_id = ${accountId} WHERE id = ${sessionId}`;
}

/**
 * Forgets `accountId`: the sessions that acted on it act on the person's first other account (none:
 * on no account, refused until they are invited again). The ids of those sessions.
 */
export function unlistAccount(sql: Sql, accountId: string): string[] {
  sql`DELETE FROM accounts WHERE account_id = ${accountId}`;
  const next = listedAccounts(sql)[0] ?? null;
  return sql<{ id: string }>`UPDATE sessions SET account_id = ${next} WHERE account_id = ${accountId} RETURNING id`.map((row) => row.id);
}
