// EmailDO, one per normalized email (addressed by emailOf, core/env.ts). Authority for: which person
// holds this email, and the email's budget of sign-up and sign-in attempts. Two sign-ups with one
// email reach this one object, which claims the email synchronously before anything is awaited,
// so exactly one of them can win.
//
// A claim is `pending` while the person (and, at sign-up, their account) is being made and `active`
// once they exist. If the making fails, or nobody hears how it ended (a crash, a lost answer), the
// pending claim is settled by asking the person (abandonSignup): a person who exists keeps the email;
// one who does not is fenced so they can never be made later, and the email is released. That runs on
// the failure path at once, and from the alarm for a claim left pending, so an email never points at
// nothing for longer than PENDING_MS. A claim of before teams names no person (`user_id` null): its
// person is the one made from its account (personOfLegacyAccount), and its pending claim asks the account.
import { DurableObject } from "cloudflare:workers";
import { AttemptBudget } from "../../core/attempt-budget.ts";
import { accountOf, personOf, type Env } from "../../core/env.ts";
import { fail, type Failure } from "../../core/errors.ts";
import { newAccountId, newUserId } from "../../core/ids.ts";
import { DUMMY_PASSWORD_HASH, verifyPassword } from "../../core/password-hash.ts";
import { useLogLevel } from "../../core/log.ts";
import { personOfLegacyAccount } from "../contracts/members.ts";
import type { SessionOpened } from "../contracts/persons.ts";
import { wrongLogin } from "../contracts/refusals.ts";
import { addColumnIfMissing } from "../add-column.ts";
import { sqlFor, type Sql } from "../sql.ts";

/** How long a claim may stay pending before it is settled by asking the person. */
export const PENDING_MS = 60_000;

interface Holder {
  email: string;
  /** The person's own account made at sign-up, or the account they were invited into; before teams, the account that held the login. */
  account_id: string;
  /** Null for a claim of before teams. */
  user_id: string | null;
  state: "pending" | "active";
  claimed_ms: number;
}

export interface Attempt {
  email: string;
  password: string;
  /** AUTH_RATE_LIMIT_PER_MIN, read by the Worker. */
  attemptsPerMinute: number;
}

/** A new person accepting an invitation of account `account_id` (the token's account); `password` is theirs to set. */
export interface InvitedAttempt extends Omit<Attempt, "password"> {
  password: string | undefined;
  token: string;
  account_id: string;
}

/** The one holder row; a claim of before teams gets `user_id` null. */
export function createEmailSchema(sql: Sql): void {
  sql`CREATE TABLE IF NOT EXISTS holder (email TEXT PRIMARY KEY, account_id TEXT NOT NULL, state TEXT NOT NULL, claimed_ms INTEGER NOT NULL)`;
  addColumnIfMissing(sql, "holder", "user_id", "TEXT");
}

export class EmailDO extends DurableObject<Env> {
  private readonly sql = sqlFor(this.ctx.storage);
  // In memory: a budget that restarts with the object errs towards letting people in.
  private budget: AttemptBudget | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    useLogLevel(env.LOG_LEVEL);
    createEmailSchema(this.sql);
  }

  /** Claims the email for a new person and their own account, of which they are the owner, with `creditMicros` of sign-up credit. */
  async signUp(attempt: Attempt, creditMicros: number): Promise<SessionOpened> {
    const limited = this.takeAttempt(attempt.attemptsPerMinute);
    if (limited) return limited;
    if (await this.currentHolder()) return fail("conflict", "an account with this email already exists");
    const claim = await this.claim(attempt.email, newAccountId());
    const owner = { accountId: claim.account_id, user_id: claim.user_id!, email: attempt.email, creditMicros };
    const created = await accountOf(this.env, claim.account_id).createForOwner(owner).catch(() => null);
    return this.makePerson(claim, created?.ok ? attempt.password : null, created);
  }

  /** A new person accepting an invitation: claims the email, joins the account, and makes the person with the password they set. */
  async acceptInvitation(attempt: InvitedAttempt): Promise<SessionOpened> {
    const limited = this.takeAttempt(attempt.attemptsPerMinute);
    if (limited) return limited;
    if (await this.currentHolder()) return fail("conflict", `sign in as ${attempt.email}, then open the link again`);
    if (attempt.password === undefined) return fail("invalid", "password: is required to join as a new person (12 to 128 characters)");
    const claim = await this.claim(attempt.email, attempt.account_id);
    const joined = await accountOf(this.env, attempt.account_id)
      .acceptInvitation(attempt.token, { user_id: claim.user_id!, email: attempt.email })
      .catch(() => null);
    return this.makePerson(claim, joined?.ok ? attempt.password : null, joined);
  }

  /** Checks the password of the person holding this email; an unknown email costs the same work. */
  async signIn(attempt: Attempt): Promise<SessionOpened> {
    const limited = this.takeAttempt(attempt.attemptsPerMinute);
    if (limited) return limited;
    const holder = this.holder();
    if (holder?.state !== "active") {
      await verifyPassword(attempt.password, DUMMY_PASSWORD_HASH);
      return wrongLogin();
    }
    if (holder.user_id !== null) return personOf(this.env, holder.user_id).signIn(attempt.email, attempt.password, null);
    return personOf(this.env, personOfLegacyAccount(holder.account_id)).signIn(attempt.email, attempt.password, holder.account_id);
  }

  override async alarm(): Promise<void> {
    const holder = this.holder();
    if (holder?.state !== "pending") return;
    const dueMs = holder.claimed_ms + PENDING_MS;
    if (Date.now() < dueMs) return this.ctx.storage.setAlarm(dueMs);
    // Not settled (the person could not be reached): try again later rather than guess.
    const settled = await this.settlePending(holder).catch(() => "unknown" as const);
    if (settled === "unknown") await this.ctx.storage.setAlarm(Date.now() + PENDING_MS);
  }

  private holder(): Holder | undefined {
    return this.sql<Holder>`SELECT email, account_id, user_id, state, claimed_ms FROM holder`[0];
  }

  /** The holder, once a claim left pending too long is settled. */
  private async currentHolder(): Promise<Holder | undefined> {
    const holder = this.holder();
    if (holder?.state === "pending" && Date.now() - holder.claimed_ms >= PENDING_MS) {
      await this.settlePending(holder).catch(() => undefined);
      return this.holder();
    }
    return holder;
  }

  /** Claims the email for a new person; synchronous with the caller's check, so a second attempt arriving from here on finds this claim. */
  private async claim(email: string, accountId: string): Promise<Holder> {
    const claim: Holder = { email, account_id: accountId, user_id: newUserId(), state: "pending", claimed_ms: Date.now() };
    this.sql`INSERT INTO holder (email, account_id, user_id, state, claimed_ms)
             VALUES (${email}, ${accountId}, ${claim.user_id}, 'pending', ${claim.claimed_ms})`;
    await this.ctx.storage.setAlarm(Date.now() + PENDING_MS);
    return claim;
  }

  /** Makes the claimed person once their account is made or joined (`password` null: it was not, `refused` says why). */
  private async makePerson(claim: Holder, password: string | null, refused: Failure | { ok: true } | null): Promise<SessionOpened> {
    const made = password === null
      ? null
      : await personOf(this.env, claim.user_id!)
        .createPerson({ user_id: claim.user_id!, email: claim.email, password, account_id: claim.account_id })
        .catch(() => null);
    if (made?.ok) {
      this.sql`UPDATE holder SET state = 'active' WHERE user_id = ${claim.user_id}`;
      return made;
    }
    // Settled now rather than by the alarm, so a retry finds the email free at once.
    const settled = await this.settlePending(claim).catch(() => "unknown" as const);
    if (settled === "active") return fail("conflict", "an account with this email was created, but its session was lost: sign in");
    const failure = made ?? (refused?.ok === false ? refused : null);
    return failure ?? fail("internal", "the account could not be created; try again");
  }

  /** Asks the person (before teams: the account) of a pending claim whether they exist; keeps or releases the email by the answer. */
  private async settlePending(pending: Holder): Promise<"active" | "released"> {
    const { exists } = pending.user_id === null
      ? await accountOf(this.env, pending.account_id).abandonSignup(pending.email)
      : await personOf(this.env, pending.user_id).abandonSignup(pending.email);
    const current = this.holder();
    // Someone else settled it while we asked.
    if (current?.account_id !== pending.account_id || current.user_id !== pending.user_id || current.state !== "pending") {
      return exists ? "active" : "released";
    }
    if (exists) this.sql`UPDATE holder SET state = 'active'`;
    else this.sql`DELETE FROM holder`;
    return exists ? "active" : "released";
  }

  private takeAttempt(perMinute: number): Failure | null {
    if (this.budget?.perMinute !== perMinute) this.budget = new AttemptBudget(perMinute);
    const retryAfter = this.budget.take("email", Date.now());
    return retryAfter === null
      ? null
      : fail("rate_limited", `more than ${perMinute} sign-up or sign-in attempts per minute for this email`, { "retry-after": String(retryAfter) });
  }
}
