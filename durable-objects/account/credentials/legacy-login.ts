// Before teams an account held its one login: the email's password hash and the browser sessions. The
// person made from the account (personOfLegacyAccount) takes them over on their first call, and the
// account then forgets them; until then they are kept here as they were written, read by nothing else.
import type { LegacyLogin } from "../../contracts/persons.ts";
import type { Sql } from "../../sql.ts";

/** The login this account held, or null: none (an account the operator made without an email), or handed over already. */
export function legacyLogin(sql: Sql): LegacyLogin | null {
  const [account] = sql<{ email: string | null }>`SELECT email FROM account`;
  const [password] = sql<LegacyLogin["password"]>`SELECT algorithm, iterations, salt, hash FROM password`;
  if (!account?.email || !password) return null;
  const sessions = sql<LegacyLogin["sessions"][number]>`SELECT id, hash, created_at, last_used_ms FROM sessions`;
  return { email: account.email, password, sessions };
}

/** Drops the password and sessions once the person holds them. */
export function forgetLegacyLogin(sql: Sql): void {
  sql`DELETE FROM password`;
  sql`DELETE FROM sessions`;
}
