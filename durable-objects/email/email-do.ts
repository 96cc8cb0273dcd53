// EmailDO, one per normalized email (addressed by emailOf, core/env.ts). Authority for: which account
// holds this email, and the email's budget of sign-up and sign-in attempts. Two sign-ups with one
// email reach this one object, which claims the email synchronously before anything is awaited,
// so exactly one of them can win.
//
// A claim is `pending` while the account is being created and `active` once it exists. If the
// creation fails, or nobody hears how it ended (a crash, a lost answer), the pending claim is
// settled by asking the account (abandonSignup): an account that exists keeps the email; one that
// does not is fenced so it can never be created later, and the email is released. That runs on the
// failure path at once, and from the alarm for a claim left pending, so an email never points at
// nothing for longer than PENDING_MS.
import { DurableObject } from "cloudflare:workers";
import { AttemptBudget } from "../../core/attempt-budget.ts";
import { accountOf, type Env } from "../../core/env.ts";
import { fail, type Failure } from "../../core/errors.ts";
import { newAccountId } from "../../core/ids.ts";
import { DUMMY_PASSWORD_HASH, verifyPassword } from "../../core/password-hash.ts";
import type { SignedIn } from "../contracts/accounts.ts";
import { wrongLogin } from "../contracts/refusals.ts";
import { sqlFor } from "../sql.ts";

/** How long a claim may stay pending before it is settled by asking the account. */
export const PENDING_MS = 60_000;

interface Holder {
  email: string;
  account_id: string;
  state: "pending" | "active";
  claimed_ms: number;
}

export interface Attempt {
  email: string;
  password: string;
  /** AUTH_RATE_LIMIT_PER_MIN, read by the Worker. */
  attemptsPerMinute: number;
}

export class EmailDO extends DurableObject<Env> {
  private readonly sql = sqlFor(this.ctx.storage);
  // In memory: a budget that restarts with the object errs towards letting people in.
  private budget: AttemptBudget | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql`CREATE TABLE IF NOT EXISTS holder (
      email TEXT PRIMARY KEY, account_id TEXT NOT NULL, state TEXT NOT NULL, claimed_ms INTEGER NOT NULL)`;
  }

  /** Claims the email for a new account and creates it, with `creditMicros` of sign-up credit. */
  async signUp(attempt: Attempt, creditMicros: number): Promise<SignedIn> {
    const limited = this.takeAttempt(attempt.attemptsPerMinute);
    if (limited) return limited;
    let holder = this.holder();
    if (holder?.state === "pending" && Date.now() - holder.claimed_ms >= PENDING_MS) {
      await this.settlePending(holder).catch(() => undefined);
      holder = this.holder();
    }
    if (holder) return fail("conflict", "an account with this email already exists");
    const accountId = newAccountId();
    // Synchronous with the check above: a second sign-up arriving from here on finds this claim.
    this.sql`INSERT INTO holder (email, account_id, state, claimed_ms) VALUES (${attempt.email}, ${accountId}, 'pending', ${Date.now()})`;
    await this.ctx.storage.setAlarm(Date.now() + PENDING_MS);
    const created = await accountOf(this.env, accountId)
      .createWithLogin({ accountId, email: attempt.email, password: attempt.password, creditMicros })
      .catch(() => null);
    if (created?.ok) {
      this.sql`UPDATE holder SET state = 'active' WHERE account_id = ${accountId}`;
      return created;
    }
    // Settled now rather than by the alarm, so a retry finds the email free at once.
    const settled = await this.settlePending({ email: attempt.email, account_id: accountId, state: "pending", claimed_ms: 0 })
      .catch(() => "unknown" as const);
    if (settled === "active") return fail("conflict", "an account with this email was created, but its session was lost: sign in");
    return created ?? fail("internal", "the account could not be created; try again");
  }

  /** Checks the password of the account holding this email; an unknown email costs the same work. */
  async signIn(attempt: Attempt): Promise<SignedIn> {
    const limited = this.takeAttempt(attempt.attemptsPerMinute);
    if (limited) return limited;
    const holder = this.holder();
    if (holder?.state !== "active") {
      await verifyPassword(attempt.password, DUMMY_PASSWORD_HASH);
      return wrongLogin();
    }
    return accountOf(this.env, holder.account_id).signIn(attempt.email, attempt.password);
  }

  override async alarm(): Promise<void> {
    const holder = this.holder();
    if (holder?.state !== "pending") return;
    const dueMs = holder.claimed_ms + PENDING_MS;
    if (Date.now() < dueMs) return this.ctx.storage.setAlarm(dueMs);
    // Not settled (the account could not be reached): try again later rather than guess.
    const settled = await this.settlePending(holder).catch(() => "unknown" as const);
    if (settled === "unknown") await this.ctx.storage.setAlarm(Date.now() + PENDING_MS);
  }

  private holder(): Holder | undefined {
    return this.sql<Holder>`SELECT email, account_id, state, claimed_ms FROM holder`[0];
  }

  /** Asks the account of a pending claim whether it exists; keeps or releases the email by the answer. */
  private async settlePending(pending: Holder): Promise<"active" | "released"> {
    const { exists } = await accountOf(this.env, pending.account_id).abandonSignup(pending.email);
    const current = this.holder();
    // Someone else settled it while we asked.
    if (current?.account_id !== pending.account_id || current.state !== "pending") return exists ? "active" : "released";
    if (exists) this.sql`UPDATE holder SET state = 'active' WHERE account_id = ${pending.account_id}`;
    else this.sql`DELETE FROM holder WHERE account_id = ${pending.account_id}`;
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
