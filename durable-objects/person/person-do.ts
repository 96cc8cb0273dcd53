// PersonDO, one per person (addressed by personOf, core/env.ts): a table of contents, each call handed
// to the part that owns it. Authority for: the person's email, password hash and sessions, and which
// account each session acts on; it keeps a copy of the accounts they belong to (which AccountDOs to
// ask: each account is the authority for its members and their roles). Which person holds an email is
// the EmailDO's. A person from before teams is made from their account on its first call (adoption.ts).
import { DurableObject } from "cloudflare:workers";
import { clock, iso } from "../../core/clock.ts";
import { sessionTokens } from "../../core/credentials.ts";
import { accountOf, type Env } from "../../core/env.ts";
import { fail, type Failure, type Ok } from "../../core/errors.ts";
import { sha256Hex } from "../../core/hash.ts";
import { useLogLevel } from "../../core/log.ts";
import type { NewPerson, PersonSession, SessionOpened } from "../contracts/persons.ts";
import { sqlFor } from "../sql.ts";
import { actOn, listAccount, listedAccounts, unlistAccount } from "./account-list.ts";
import { hasPerson, storeLegacyLogin } from "./adoption.ts";
import { createPersonSchema } from "./schema.ts";
import { findLiveSession, revokeAllSessions, revokeSession } from "./sessions.ts";
import { abandonSignupUnlessCreated, createPerson, replacePassword, signInWithPassword, type LoginStore } from "./sign-in.ts";

const NO_SESSION = "the session has ended; sign in again (POST /v1/auth/login)";

export class PersonDO extends DurableObject<Env> {
  private readonly logins: LoginStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    useLogLevel(env.LOG_LEVEL);
    const sql = sqlFor(ctx.storage);
    createPersonSchema(sql);
    this.logins = { sql, transaction: (fn) => ctx.storage.transactionSync(fn), nowMs: () => clock.now() };
  }

  // ---- from the EmailDO, which decides which person holds an email ----
  /** Sign-up, or a new person accepting an invitation: once the email is claimed for `p.user_id` and `p.account_id` made or joined for them. */
  createPerson(p: NewPerson): Promise<SessionOpened> {
    return createPerson(this.logins, p);
  }

  /** For a sign-up the EmailDO lost track of: does the person exist? If not, they never will. */
  abandonSignup(email: string): { exists: boolean } {
    return abandonSignupUnlessCreated(this.logins.sql, email, iso(clock.now()));
  }

  /** `legacyAccountId`: the account this person held their login in before teams, when the EmailDO still names it. */
  async signIn(email: string, password: string, legacyAccountId: string | null): Promise<SessionOpened> {
    if (legacyAccountId !== null) await this.adopt(legacyAccountId);
    return signInWithPassword(this.logins, email, password);
  }

  // ---- from the Worker, with the session cookie's token ----
  /** Who the session is and the account it acts on; null when it is no live session of this person. */
  async session(token: string): Promise<PersonSession | null> {
    const found = await this.liveSession(token);
    if (!found) return null;
    const [person] = this.logins.sql<{ id: string; email: string }>`SELECT id, email FROM person`;
    return { person: { user_id: person!.id, session_id: found.id, email: person!.email }, account_id: found.account_id };
  }

  /** Ends the session `token` names (`everywhere`: every one), and what they opened on the hosts of every account of the person. */
  async signOut(token: string, everywhere: boolean): Promise<Ok<object> | Failure> {
    const found = await this.liveSession(token);
    if (!found) return everywhere ? fail("unauthorized", NO_SESSION) : { ok: true };
    const ended = everywhere ? revokeAllSessions(this.logins.sql) : revokeSession(this.logins.sql, found.id);
    await Promise.all(this.accountsOf().map((accountId) => accountOf(this.env, accountId).sessionsEnded(ended)));
    return { ok: true };
  }

  /** A new password ends every other session, and what they opened on the hosts. */
  async changePassword(token: string, current: string, next: string): Promise<Ok<object> | Failure> {
    const found = await this.liveSession(token);
    if (!found) return fail("unauthorized", NO_SESSION);
    const changed = await replacePassword(this.logins, found.id, current, next);
    if (!changed.ok) return changed;
    // The password is changed either way: an account that cannot be told now is not the caller's failure.
    await Promise.allSettled(this.accountsOf().map((accountId) => accountOf(this.env, accountId).sessionsEnded(changed.ended)));
    return { ok: true };
  }

  /** Moves the session to `accountId`, once that account says the person is its member. */
  async switchAccount(token: string, accountId: string): Promise<Ok<PersonSession> | Failure> {
    const session = await this.session(token);
    if (!session) return fail("unauthorized", NO_SESSION);
    const membership = await accountOf(this.env, accountId).membership(session.person.user_id);
    if (!membership) return fail("forbidden", `you are not a member of account ${accountId}`);
    return this.joinedAccount(accountId, token);
  }

  /** The account `token`'s person just joined (its AccountDO said so): listed, and the session acts on it. */
  async joinedAccount(accountId: string, token: string): Promise<Ok<PersonSession> | Failure> {
    const session = await this.session(token);
    if (!session) return fail("unauthorized", NO_SESSION);
    this.logins.transaction(() => {
      listAccount(this.logins.sql, accountId, iso(clock.now()));
      actOn(this.logins.sql, session.person.session_id, accountId);
    });
    return { ok: true, person: session.person, account_id: accountId };
  }

  // ---- from the AccountDOs ----
  accountIds(): string[] {
    return this.accountsOf();
  }

  /** The person is no member of `accountId` any more: the ids of the sessions that acted on it (they act on another of the person's accounts now). */
  leftAccount(accountId: string): string[] {
    return this.logins.transaction(() => unlistAccount(this.logins.sql, accountId));
  }

  private accountsOf(): string[] {
    return listedAccounts(this.logins.sql);
  }

  /** The live session of `token`, recording its use; a session of before teams is taken over from its account first. */
  private async liveSession(token: string): Promise<{ id: string; account_id: string | null } | null> {
    const owner = sessionTokens.ownerOf(token);
    if (owner === null) return null;
    if (owner.startsWith("acc-")) await this.adopt(owner);
    return findLiveSession(this.logins.sql, await sha256Hex(token), clock.now());
  }

  /** Takes over the login `accountId` held before teams, unless this person exists already. */
  private async adopt(accountId: string): Promise<void> {
    if (hasPerson(this.logins)) return;
    const login = await accountOf(this.env, accountId).handOverLogin();
    if (!login) return;
    storeLegacyLogin(this.logins, accountId, login);
    await accountOf(this.env, accountId).forgetLogin();
  }
}
