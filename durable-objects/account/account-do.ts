// AccountDO, one per account. Authority for: the account row, its API keys, its password hash and
// sessions, its balance and ledger, its instances (status, desired state, billing), their events
// and idempotency keys. Not the authority for GPUs (MachineDO), prices (FleetDO; an instance's price
// is frozen here) nor for which account holds an email (EmailDO).
// Every method that acts for a caller takes the caller's credential (an API key or a session) and
// checks it on the same call, so a request costs one round trip and a revoked key or session fails
// on its very next use. The proxy is admitted by the MachineDOs, from the key sets this object pushes
// them (key-set.ts); a key change, stop or destroy is answered once they have acknowledged it. It
// admits the opening of an instance web app (the ticket and the app session are the MachineDO's) and
// ends the app sessions a browser session opened when that session ends (app-openers.ts).
import { DurableObject } from "cloudflare:workers";
import { fail, type Failure } from "../../core/errors.ts";
import { clock, iso } from "../../core/clock.ts";
import { instanceTokenFor, instanceTokens } from "../../core/credentials.ts";
import { constantTimeEqual } from "../../core/hash.ts";
import { newReferralCode } from "../../core/ids.ts";
import type { Env } from "../../core/env.ts";
import type { MachineDirective, MachineReport } from "../contracts/object-messages.ts";
import { Outbox, type Delivery } from "../outbox/outbox.ts";
import { SingleAlarm } from "../outbox/single-alarm.ts";
import { sqlFor } from "../sql.ts";
import { balanceAt, nextSettlementMs, settleAll } from "./billing.ts";
import { DESTROYED_VISIBLE_MS, Expiry } from "./expiry.ts";
import type { AccountContext } from "./account-context.ts";
import * as actions from "./instance-actions.ts";
import { findInstance, listEvents, listInstances, toInstance, type Instance, type InstanceRow } from "./instance-row.ts";
import { checkCredential, type Caller } from "./credential-check.ts";
import { createAndPushKey, revokeAndConfirm } from "./key-changes.ts";
import { APP_END_PENDING, createAppOpenersTable, endAppsOpenedBy, openApp, pendingAppEnds } from "./app-openers.ts";
import { createKeySetTable } from "./key-set.ts";
import { LaunchTimeout } from "./launch-timeout.ts";
import { listKeys, type CreatedKey, type KeySummary } from "./keys.ts";
import { ledgerPage, type LedgerEntry } from "./ledger-page.ts";
import type { Idempotency, LaunchPlan } from "../../core/launch-plan.ts";
import { balanceOf, changeBalance, MAX_BALANCE_MICROS } from "./ledger.ts";
import { applyReports } from "./reports.ts";
import { createAccountSchema } from "./schema.ts";
import { addAccountSchemaAdditions } from "./schema-additions.ts";
import { SerialQueue } from "./serial-queue.ts";
import { revokeSession } from "./sessions.ts";
import { abandonSignupUnlessCreated, createLoginAccount, replacePassword, signInWithPassword, type LoginStore } from "./sign-in.ts";
import type { AccountInfo, NewLoginAccount } from "../contracts/accounts.ts";

type Ok<T> = { ok: true } & T;

export class AccountDO extends DurableObject<Env> {
  private readonly clock = clock;
  private readonly sql = sqlFor(this.ctx.storage);
  private readonly queue = new SerialQueue();
  /** Desired-state changes and key sets for MachineDOs, keyed by machine id. */
  private readonly outbox: Outbox<MachineDirective>;
  private readonly alarms: SingleAlarm;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    createAccountSchema(this.sql);
    addAccountSchemaAdditions(this.sql);
    createKeySetTable(this.sql);
    createAppOpenersTable(this.sql);
    this.outbox = new Outbox<MachineDirective>(this.sql, {
      name: "machine directive",
      now: () => this.clock.now(),
      send: (machineId, batch) => this.env.MACHINES.getByName(machineId).applyDirectives(batch.map((queued) => queued.message)),
      logIds: (machineId) => ({ account_id: this.info()?.id, machine_id: Number(machineId) }),
      queued: () => this.alarms.backstop(),
    });
    // Settlement and expiry are on this object's clock (tests move it); the alarm keeps real time.
    this.alarms = new SingleAlarm(ctx, () => this.clock.now());
    this.alarms.register(
      { nextAlarmMs: (nowMs) => nextSettlementMs(this.sql, nowMs), onAlarm: () => { this.settleNow(); } },
      new Expiry(this.sql),
      // Before the outbox: a launch given up on this alarm is told to its host on the same ring.
      new LaunchTimeout(this.sql, () => this.context()),
      this.outbox,
    );
  }

  // ---- operator API ----

  initialize(accountId: string, balanceMicros: number): AccountInfo {
    const at = iso(this.clock.now());
    this.ctx.storage.transactionSync(() => {
      this.sql`INSERT INTO account (id, referral_code, created_at, balance_micros) VALUES (${accountId}, ${newReferralCode()}, ${at}, 0)`;
      if (balanceMicros !== 0) changeBalance(this.sql, { kind: "credit", amountMicros: balanceMicros, note: "opening balance", at });
    });
    return this.info()!;
  }

  credit(amountMicros: number, note: string): Ok<{ balance_micros: number }> | Failure {
    if (!this.info()) return fail("not_found", "no such account");
    const at = iso(this.clock.now());
    const balance = this.ctx.storage.transactionSync(() => {
      settleAll(this.sql, this.clock.now());
      if (Math.abs(balanceOf(this.sql) + amountMicros) > MAX_BALANCE_MICROS) return null;
      return changeBalance(this.sql, { kind: amountMicros >= 0 ? "credit" : "debit", amountMicros, note, at });
    });
    if (balance === null) return fail("invalid", `amount_micros: the balance would go beyond ±${MAX_BALANCE_MICROS} micro-dollars`);
    this.afterChange();
    return { ok: true, balance_micros: balance };
  }

  async createApiKey(name: string): Promise<Ok<{ key: CreatedKey }> | Failure> {
    if (!this.info()) return fail("not_found", "no such account");
    const created = await this.queue.run(() => createAndPushKey(this.context(), name));
    this.afterChange();
    return created;
  }

  listApiKeys(): Ok<{ items: KeySummary[] }> | Failure {
    if (!this.info()) return fail("not_found", "no such account");
    return { ok: true, items: listKeys(this.sql) };
  }

  async revokeApiKey(keyId: string): Promise<Ok<object> | Failure> {
    if (!this.info()) return fail("not_found", "no such account");
    return this.revoke(keyId, `no live key ${keyId}`);
  }

  // ---- caller API (each checks the caller's credential: an API key or a session) ----

  async authenticate(credential: string): Promise<boolean> {
    return (await this.caller(credential)) !== null;
  }

  async me(key: string): Promise<Ok<{ account: AccountInfo }> | Failure> {
    if (!(await this.authenticate(key))) return unauthorized();
    const balance = this.balanceForRead();
    if (balance !== null) return { ok: true, account: { ...this.info()!, balance_micros: balance } };
    return (await this.settleForRequest()) ?? { ok: true, account: this.info()! };
  }

  async launch(key: string, plan: LaunchPlan, idem: Idempotency | null): Promise<actions.InstanceResult> {
    if (!(await this.authenticate(key))) return unauthorized();
    const result = await this.queue.run(() => actions.launch(this.context(), plan, idem));
    this.afterChange();
    return result;
  }

  async listInstances(key: string): Promise<Ok<{ items: Instance[] }> | Failure> {
    if (!(await this.authenticate(key))) return unauthorized();
    const failure = this.balanceForRead() === null ? await this.settleForRequest() : null;
    if (failure) return failure;
    return { ok: true, items: await Promise.all(listInstances(this.sql).filter((row) => this.visible(row)).map((row) => this.show(row))) };
  }

  async getInstance(key: string, id: string): Promise<actions.InstanceResult> {
    if (!(await this.authenticate(key))) return unauthorized();
    const row = findInstance(this.sql, id);
    if (!row || !this.visible(row)) return fail("not_found", `no instance ${id} in this account`);
    return { ok: true, instance: await this.show(row) };
  }

  async instanceEvents(key: string, id: string): Promise<Ok<{ items: { message: string; created_at: string }[] }> | Failure> {
    const found = await this.getInstance(key, id);
    return found.ok ? { ok: true, items: listEvents(this.sql, id) } : found;
  }

  async renameInstance(key: string, id: string, label: string): Promise<actions.InstanceResult> {
    const found = await this.getInstance(key, id);
    return found.ok ? this.queue.run(() => actions.rename(this.context(), id, label)) : found;
  }

  async stopInstance(key: string, id: string): Promise<actions.InstanceResult> {
    return this.change(key, id, () => actions.stop(this.context(), id, "Stop requested; GPUs released and billing stopped"));
  }

  async startInstance(key: string, id: string): Promise<actions.InstanceResult> {
    return this.change(key, id, () => actions.start(this.context(), id));
  }

  async destroyInstance(key: string, id: string): Promise<actions.InstanceResult> {
    return this.change(key, id, () => actions.destroy(this.context(), id));
  }

  /**
   * Logs: any caller of the account (a key or a session). The host answers, so an instance in any
   * status is let through; its MachineDO says whether the host still keeps the logs.
   */
  async openLogs(credential: string, id: string): Promise<Ok<{ machine_id: number }> | Failure> {
    const found = await this.getInstance(credential, id);
    return found.ok ? { ok: true, machine_id: findInstance(this.sql, id)!.machine_id! } : found;
  }

  /**
   * Proxy admission's slow path, for refusals and legacy ids only: the MachineDO hosting an instance
   * admits on its own (proxy-admission.ts), and the Worker asks here only when it refused a key it
   * cannot judge (another account's, a wrong one) or does not know the instance (an id from before
   * ids named their machine). Admits an account key, or the instance's own token.
   */
  async openProxy(credential: string, id: string): Promise<Ok<{ machine_id: number }> | Failure> {
    const row = findInstance(this.sql, id);
    const tokenMatches = row !== undefined && instanceTokens.ownerOf(credential) !== null
      && constantTimeEqual(await this.instanceToken(row.id), credential);
    // The proxy takes Bearer credentials only: a session never opens it.
    if (!tokenMatches && (await this.caller(credential))?.kind !== "key") return unauthorized();
    if (!row || !this.visible(row)) return fail("not_found", `no instance ${id} in this account`);
    if (row.status !== "running") return fail("not_running", `instance ${id} is ${row.status}, not running`);
    if (row.machine_online !== 1) return fail("upstream_unavailable", `the host of instance ${id} is offline`);
    return { ok: true, machine_id: row.machine_id! };
  }

  /**
   * A one-time ticket for the web app on `port` of instance `id`, for any caller of the account (a
   * key or a session). In the queue, with the caller checked there, so a sign-out cannot slip between
   * the check of its session and the note that the session opened an app (app-openers.ts).
   */
  async openApp(credential: string, id: string, port: number): Promise<Ok<{ ticket: string; expires_ms: number }> | Failure> {
    if (!this.info()) return unauthorized();
    return this.queue.run(async () => {
      const caller = await this.caller(credential);
      if (!caller) return unauthorized();
      const row = findInstance(this.sql, id);
      if (!row || !this.visible(row)) return fail("not_found", `no instance ${id} in this account`);
      return openApp(this.context(), caller, row, port);
    });
  }

  // ---- sign-up and sign-in (the EmailDO decides which account holds an email) ----

  /** Sign-up, called by the EmailDO once it has claimed the email for `account.accountId`. */
  async createWithLogin(account: NewLoginAccount): Promise<Ok<{ account: AccountInfo; session: string }> | Failure> {
    const created = await createLoginAccount(this.loginStore(), account);
    return created.ok ? { ok: true, account: this.info()!, session: created.session } : created;
  }

  /** From the EmailDO, for a sign-up it lost track of: does the account exist? If not, it never will. */
  abandonSignup(email: string): { exists: boolean } {
    return abandonSignupUnlessCreated(this.sql, email, iso(this.clock.now()));
  }

  /** Sign-in, called by the EmailDO for the account holding `email`. */
  async signIn(email: string, password: string): Promise<Ok<{ account: AccountInfo; session: string }> | Failure> {
    const signedIn = await signInWithPassword(this.loginStore(), email, password);
    if (!signedIn.ok) return signedIn;
    return (await this.settleForRequest()) ?? { ok: true, account: this.info()!, session: signedIn.session };
  }

  /**
   * Ends the session `credential` names, if it is live (anything else is already signed out), and the
   * web app sessions it opened: answered once their hosts' MachineDOs have acknowledged that, so the
   * apps refuse the very next request. A retry after a 500 waits for the ends still pending.
   */
  async signOut(credential: string): Promise<Ok<object> | Failure> {
    const caller = await this.caller(credential);
    if (caller?.kind === "session") revokeSession(this.sql, caller.sessionId);
    // Queued after any openApp that checked this session before it ended, so its note is seen.
    const failure = await this.queue.run(() => {
      const ends = caller?.kind === "session"
        ? this.ctx.storage.transactionSync(() => endAppsOpenedBy(this.sql, this.outbox, this.info()!.id, { sessionIds: [caller.sessionId] }))
        : pendingAppEnds(this.outbox);
      return this.confirm(ends, APP_END_PENDING);
    });
    this.afterChange();
    return failure ?? { ok: true };
  }

  async changePassword(credential: string, current: string, next: string): Promise<Ok<object> | Failure> {
    const caller = await this.caller(credential);
    if (caller?.kind !== "session") return fail("unauthorized", "changing the password needs a signed-in session (the gpr_session cookie)");
    const changed = await replacePassword(this.loginStore(), caller.sessionId, current, next);
    if (!changed.ok) return changed;
    // The other sessions have ended: so do the web apps they opened. The password is changed either
    // way, so a host that does not confirm in time is left to the outbox rather than failing the change.
    await this.queue.run(() =>
      this.outbox.deliverNow(this.ctx.storage.transactionSync(() => endAppsOpenedBy(this.sql, this.outbox, this.info()!.id, { allBut: caller.sessionId }))));
    this.afterChange();
    return changed;
  }

  // ---- self-service: keys and the ledger ----

  async listKeysFor(credential: string): Promise<Ok<{ items: KeySummary[] }> | Failure> {
    if (!(await this.caller(credential))) return unauthorized();
    return { ok: true, items: listKeys(this.sql) };
  }

  async createKeyFor(credential: string, name: string): Promise<Ok<{ key: CreatedKey }> | Failure> {
    if (!(await this.caller(credential))) return unauthorized();
    return this.createApiKey(name);
  }

  async revokeKeyFor(credential: string, keyId: string): Promise<Ok<object> | Failure> {
    if (!(await this.caller(credential))) return unauthorized();
    return this.revoke(keyId, `no live key ${keyId} in this account`);
  }

  /** Newest first; `before` is the id of the last entry of the previous page. */
  async ledger(credential: string, limit: number, before: number | null): Promise<Ok<{ items: LedgerEntry[]; next_cursor: string | null }> | Failure> {
    if (!(await this.caller(credential))) return unauthorized();
    return (await this.settleForRequest()) ?? { ok: true, ...ledgerPage(this.sql, limit, before) };
  }

  // ---- from MachineDOs ----

  applyMachineReports(machineId: number, reports: MachineReport[]): { unknown: string[] } {
    const unknown = this.ctx.storage.transactionSync(() => {
      const result = applyReports(this.sql, machineId, reports);
      this.settleNow();
      return result;
    });
    this.afterChange();
    return { unknown };
  }

  override async alarm(): Promise<void> {
    await this.alarms.ring();
  }

  // ---- internals ----

  private info(): AccountInfo | undefined {
    return this.sql<AccountInfo>`SELECT id, referral_code, created_at, email, balance_micros FROM account`[0];
  }

  private async caller(credential: string): Promise<Caller | null> {
    return this.info() === undefined ? null : checkCredential(this.sql, credential, this.clock.now());
  }

  private loginStore(): LoginStore {
    return { sql: this.sql, transaction: (fn) => this.ctx.storage.transactionSync(fn), nowMs: () => this.clock.now() };
  }

  private visible(row: { destroyed_ms: number | null }): boolean {
    return row.destroyed_ms === null || row.destroyed_ms > this.clock.now() - DESTROYED_VISIBLE_MS;
  }

  private context(): AccountContext {
    return {
      sql: this.sql,
      clock: this.clock,
      env: this.env,
      accountId: this.info()!.id,
      outbox: this.outbox,
      transaction: (fn) => this.ctx.storage.transactionSync(fn),
      show: (row) => this.show(row),
      confirm: (deliveries, pendingMessage) => this.confirm(deliveries, pendingMessage),
    };
  }

  private instanceToken(instanceId: string): Promise<string> {
    return instanceTokenFor(this.env.INSTANCE_TOKEN_SECRET, this.info()!.id, instanceId);
  }

  private async show(row: InstanceRow): Promise<Instance> {
    return toInstance(row, await this.instanceToken(row.id));
  }

  /** Delivers to the MachineDOs now and waits; 500 `internal` saying `pendingMessage` when one did not acknowledge. */
  private async confirm(deliveries: Delivery[], pendingMessage: string): Promise<Failure | null> {
    if (deliveries.length === 0 || (await this.outbox.deliverNow(deliveries))) return null;
    return fail("internal", pendingMessage);
  }

  /** Answers once every MachineDO holding the account's key set has the new one. */
  private async revoke(keyId: string, notFound: string): Promise<Ok<object> | Failure> {
    const revoked = await this.queue.run(() => revokeAndConfirm(this.context(), keyId, notFound));
    this.afterChange();
    return revoked;
  }


  private async change(key: string, id: string, action: () => Promise<actions.InstanceResult>): Promise<actions.InstanceResult> {
    if (!(await this.authenticate(key))) return unauthorized();
    const result = await this.queue.run(action);
    this.afterChange();
    return result;
  }

  /** Charges accrued time; a used-up balance stops what runs. Returns those stops, for their hosts. */
  private settleNow(): Delivery[] {
    return this.ctx.storage.transactionSync(() =>
      settleAll(this.sql, this.clock.now()) <= 0 ? actions.stopForLackOfFunds(this.context()) : []);
  }

  /**
   * The balance settled up to now, for a read that writes nothing; null when it is used up, where the
   * read must settle for real (settleForRequest) so what runs is stopped before it answers.
   */
  private balanceForRead(): number | null {
    const balance = balanceAt(this.sql, this.clock.now());
    return balance > 0 ? balance : null;
  }

  /** Settles for a caller's request: a stop it causes is acknowledged by the hosts before the answer. */
  private async settleForRequest(): Promise<Failure | null> {
    const stops = this.settleNow();
    if (stops.length === 0) return null;
    const failure = await this.confirm(stops, actions.STOP_PENDING_MESSAGE);
    this.afterChange();
    return failure;
  }

  /** After a state change: push desired states to machines now and keep the alarm right. */
  private afterChange(): void {
    this.alarms.afterChange();
  }
}

const unauthorized = () => fail("unauthorized", "API key or session missing, wrong, expired or revoked");
