// The fence of a sign-up the EmailDO lost track of: an account that was not created by the time the
// EmailDO asks is marked abandoned, and can never be created later, so the email can be released safely.
import type { Sql } from "../../sql.ts";

/** Whether the account may still be created: it does not exist and its sign-up was not given up. */
export function mayCreateAccount(sql: Sql): boolean {
  const [row] = sql<{ n: number }>`SELECT (SELECT COUNT(*) FROM account) + (SELECT COUNT(*) FROM abandoned_signup) AS n`;
  return row!.n === 0;
}

/** Says whether the account exists with `email`, and if it does not exist, makes sure it never will. */
export function abandonSignupUnlessCreated(sql: Sql, email: string, at: string): { exists: boolean } {
  const [account] = sql<{ email: string | null }>`SELECT email FROM account`;
  if (account) return { exists: account.email === email };
  if (mayCreateAccount(sql)) sql`INSERT INTO abandoned_signup (at) VALUES (${at})`;
  return { exists: false };
}
