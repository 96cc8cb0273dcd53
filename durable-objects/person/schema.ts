// PersonDO's SQLite schema, created idempotently in the constructor. Each table is read and written by
// the part named beside it.
import type { Sql } from "../sql.ts";
import { createAccountListSchema } from "./account-list.ts";

export function createPersonSchema(sql: Sql): void {
  // sign-in.ts (and adoption.ts, for a person from before teams): the one person, their password.
  sql`CREATE TABLE IF NOT EXISTS person (id TEXT PRIMARY KEY, email TEXT NOT NULL, created_at TEXT NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS password (
    algorithm TEXT NOT NULL, iterations INTEGER NOT NULL, salt TEXT NOT NULL, hash TEXT NOT NULL, updated_at TEXT NOT NULL)`;
  // sessions.ts; `account_id` is the account the session acts on now (account-list.ts moves it).
  sql`CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, last_used_ms INTEGER NOT NULL, account_id TEXT)`;
  // Written when a sign-up that was to make this person was given up: they never can be made later (sign-in.ts).
  sql`CREATE TABLE IF NOT EXISTS abandoned_signup (at TEXT NOT NULL)`;
  // account-list.ts.
  createAccountListSchema(sql);
}
