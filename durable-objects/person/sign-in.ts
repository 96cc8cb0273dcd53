// A person's email and password: making the person (sign-up, or a new person accepting an
// invitation), signing in, and changing the password. Which person holds an email is decided by the
// EmailDO; this object keeps the password hash and the sessions. Hashing is awaited, so every write
// re-checks, in one synchronous transaction, what it read before the await.
import { fail, type Failure } from "../../core/errors.ts";
import { iso } from "../../core/clock.ts";
import type { Sql } from "../sql.ts";
import { DUMMY_PASSWORD_HASH, hashPassword, needsRehash, verifyPassword, type PasswordHash } from "../../core/password-hash.ts";
import type { NewPerson, SessionOpened } from "../contracts/persons.ts";
import { wrongLogin } from "../contracts/refusals.ts";
import { listAccount } from "./account-list.ts";
import { insertSession, newSessionToken, revokeOtherSessions } from "./sessions.ts";

export interface LoginStore {
  sql: Sql;
  transaction<T>(fn: () => T): T;
  nowMs(): number;
}

/** Makes the person with their email, password, first account and first session. Refused if they exist or their sign-up was abandoned. */
export async function createPerson(store: LoginStore, person: NewPerson): Promise<SessionOpened> {
  if (!mayCreate(store.sql)) return fail("conflict", "this person cannot be created");
  const stored = await hashPassword(person.password);
  const session = await newSessionToken(person.user_id);
  return store.transaction(() => {
    // Checked again: an abandonment may have arrived while the password was being hashed.
    if (!mayCreate(store.sql)) return fail("conflict", "this person cannot be created");
    const nowMs = store.nowMs();
    const at = iso(nowMs);
    store.sql`INSERT INTO person (id, email, created_at) VALUES (${person.user_id}, ${person.email}, ${at})`;
    storePassword(store.sql, stored, at);
    listAccount(store.sql, person.account_id, at);
    insertSession(store.sql, session.hash, nowMs, person.account_id);
    return { ok: true as const, session: session.token };
  });
}

/**
 * Settles a sign-up the EmailDO lost track of: says whether the person exists with `email`, and if
 * they do not, makes sure they never will (so the EmailDO can release the email safely).
 */
export function abandonSignupUnlessCreated(sql: Sql, email: string, at: string): { exists: boolean } {
  const [person] = sql<{ email: string }>`SELECT email FROM person`;
  if (person) return { exists: person.email === email };
  if (mayCreate(sql)) sql`INSERT INTO abandoned_signup (at) VALUES (${at})`;
  return { exists: false };
}

/** Checks the password of the person holding `email` and opens a session on the account they last used (or their first). */
export async function signInWithPassword(store: LoginStore, email: string, password: string): Promise<SessionOpened> {
  const [person] = store.sql<{ id: string; email: string }>`SELECT id, email FROM person`;
  const stored = storedPassword(store.sql);
  // Anything but this person's own email and password costs the same hashing and gets the same answer.
  const usable = person !== undefined && person.email === email && stored !== undefined;
  const matches = await verifyPassword(password, usable ? stored : DUMMY_PASSWORD_HASH);
  if (!usable || !matches) return wrongLogin();
  const fresh = needsRehash(stored) ? await hashPassword(password) : null;
  const session = await newSessionToken(person.id);
  store.transaction(() => {
    const nowMs = store.nowMs();
    // Only if the password did not change meanwhile.
    if (fresh) store.sql`UPDATE password SET algorithm = ${fresh.algorithm}, iterations = ${fresh.iterations}, salt = ${fresh.salt},
                           hash = ${fresh.hash}, updated_at = ${iso(nowMs)} WHERE hash = ${stored.hash}`;
    insertSession(store.sql, session.hash, nowMs, accountToSignInTo(store.sql));
  });
  return { ok: true, session: session.token };
}

/** Sets a new password if `current` is right, and ends every session but `sessionId` (`ended`: their ids). */
export async function replacePassword(store: LoginStore, sessionId: string, current: string, next: string): Promise<{ ok: true; ended: string[] } | Failure> {
  // A session exists only after a sign-in, so the person has a password.
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

/** Whether no person is here yet and none was abandoned. */
export function mayCreate(sql: Sql): boolean {
  const [row] = sql<{ n: number }>`SELECT (SELECT COUNT(*) FROM person) + (SELECT COUNT(*) FROM abandoned_signup) AS n`;
  return row!.n === 0;
}

/** The account of the person's most recently used session, else the first they joined; null when they belong to none. */
function accountToSignInTo(sql: Sql): string | null {
  const [recent] = sql<{ account_id: string }>`
    SELECT s.account_id FROM sessions s JOIN accounts a ON a.account_id = s.account_id ORDER BY s.last_used_ms DESC LIMIT 1`;
  const [first] = sql<{ account_id: string }>`SELECT account_id FROM accounts ORDER BY joined_at, account_id LIMIT 1`;
  return recent?.account_id ?? first?.account_id ?? null;
}

function storedPassword(sql: Sql): PasswordHash | undefined {
  return sql<PasswordHash>`SELECT algorithm, iterations, salt, hash FROM password`[0];
}

export function storePassword(sql: Sql, stored: PasswordHash, at: string): void {
  sql`INSERT INTO password (algorithm, iterations, salt, hash, updated_at)
      VALUES (${stored.algorithm}, ${stored.iterations}, ${stored.salt}, ${stored.hash}, ${at})`;
}
