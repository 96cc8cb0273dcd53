// An account's email and password: creating an account that has them (sign-up), signing in, and
// changing the password. Which account holds an email is decided by the EmailDO; this object keeps
// the password hash and the sessions. Hashing is awaited, so every write re-checks, in one
// synchronous transaction, what it read before the await.
import { fail, type Failure } from "../../core/errors.ts";
import { iso } from "../../core/clock.ts";
import { newReferralCode } from "../../core/ids.ts";
import type { Sql } from "../sql.ts";
import { changeBalance } from "./ledger.ts";
import { DUMMY_PASSWORD_HASH, hashPassword, needsRehash, verifyPassword, type PasswordHash } from "../../core/password-hash.ts";
import type { NewLoginAccount } from "../contracts/accounts.ts";
import { wrongLogin } from "../contracts/refusals.ts";
import { insertSession, newSessionToken, revokeOtherSessions } from "./sessions.ts";

export interface LoginStore {
  sql: Sql;
  transaction<T>(fn: () => T): T;
  nowMs(): number;
}

/** Creates the account with its email, password and first session. Refused if it exists or its sign-up was abandoned. */
export async function createLoginAccount(store: LoginStore, account: NewLoginAccount): Promise<{ ok: true; session: string } | Failure> {
  if (!mayCreate(store.sql)) return fail("conflict", "this account cannot be created");
  const stored = await hashPassword(account.password);
  const session = await newSessionToken(account.accountId);
  return store.transaction(() => {
    // Checked again: an abandonment may have arrived while the password was being hashed.
    if (!mayCreate(store.sql)) return fail("conflict", "this account cannot be created");
    const nowMs = store.nowMs();
    const at = iso(nowMs);
    store.sql`INSERT INTO account (id, referral_code, created_at, balance_micros, email)
              VALUES (${account.accountId}, ${newReferralCode()}, ${at}, 0, ${account.email})`;
    storePassword(store.sql, stored, at);
    if (account.creditMicros > 0) changeBalance(store.sql, { kind: "credit", amountMicros: account.creditMicros, note: "sign-up credit", at });
    insertSession(store.sql, session.hash, nowMs);
    return { ok: true as const, session: session.token };
  });
}

/**
 * Settles a sign-up the EmailDO lost track of: says whether the account exists with `email`, and if
 * it does not exist, makes sure it never will (so the EmailDO can release the email safely).
 */
export function abandonSignupUnlessCreated(sql: Sql, email: string, at: string): { exists: boolean } {
  const [account] = sql<{ email: string | null }>`SELECT email FROM account`;
  if (account) return { exists: account.email === email };
  if (mayCreate(sql)) sql`INSERT INTO abandoned_signup (at) VALUES (${at})`;
  return { exists: false };
}

/** Checks the password of the account holding `email` and opens a session. */
export async function signInWithPassword(store: LoginStore, email: string, password: string): Promise<{ ok: true; session: string } | Failure> {
  const [account] = store.sql<{ id: string; email: string | null }>`SELECT id, email FROM account`;
  const stored = storedPassword(store.sql);
  // Anything but this account's own email and password costs the same hashing and gets the same answer.
  const usable = account !== undefined && account.email === email && stored !== undefined;
  const matches = await verifyPassword(password, usable ? stored : DUMMY_PASSWORD_HASH);
  if (!usable || !matches) return wrongLogin();
  const fresh = needsRehash(stored) ? await hashPassword(password) : null;
  const session = await newSessionToken(account.id);
  store.transaction(() => {
    const nowMs = store.nowMs();
    // Only if the password did not change meanwhile.
    if (fresh) store.sql`UPDATE password SET algorithm = ${fresh.algorithm}, iterations = ${fresh.iterations}, salt = ${fresh.salt},
                           hash = ${fresh.hash}, updated_at = ${iso(nowMs)} WHERE hash = ${stored.hash}`;
    insertSession(store.sql, session.hash, nowMs);
  });
  return { ok: true, session: session.token };
}

/** Sets a new password if `current` is right, and ends every session but `sessionId` (`ended`: their ids). */
export async function replacePassword(store: LoginStore, sessionId: string, current: string, next: string): Promise<{ ok: true; ended: string[] } | Failure> {
  // A session exists only after a sign-in, so the account has a password.
  const stored = storedPassword(store.sql)!;
  // Not 401: the session is fine, a field is wrong.
  if (!(await verifyPassword(current, stored))) return fail("invalid", "current_password: is not the account's password");
  const fresh = await hashPassword(next);
  return store.transaction(() => {
    const [session] = store.sql<{ id: string }>`SELECT id FROM sessions WHERE id = ${sessionId}`;
    if (!session) return fail("unauthorized", "the session ended while the password was being changed; sign in again");
    const changed = store.sql<{ hash: string }>`UPDATE password SET algorithm = ${fresh.algorithm}, iterations = ${fresh.iterations},
      salt = ${fresh.salt}, hash = ${fresh.hash}, updated_at = ${iso(store.nowMs())} WHERE hash = ${stored.hash} RETURNING hash`;
    if (changed.length === 0) return fail("conflict", "the password was changed by another request meanwhile; try again");
    return { ok: true as const, ended: revokeOtherSessions(store.sql, sessionId) };
  });
}

function mayCreate(sql: Sql): boolean {
  const [row] = sql<{ n: number }>`SELECT (SELECT COUNT(*) FROM account) + (SELECT COUNT(*) FROM abandoned_signup) AS n`;
  return row!.n === 0;
}

function storedPassword(sql: Sql): PasswordHash | undefined {
  return sql<PasswordHash>`SELECT algorithm, iterations, salt, hash FROM password`[0];
}

function storePassword(sql: Sql, stored: PasswordHash, at: string): void {
  sql`INSERT INTO password (algorithm, iterations, salt, hash, updated_at)
      VALUES (${stored.algorithm}, ${stored.iterations}, ${stored.salt}, ${stored.hash}, ${at})`;
}
