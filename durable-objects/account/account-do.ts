// AccountDO, one per account. Authority for: the account row, its API keys, its balance and ledger,
// its instances (status, desired state, billing), their events and idempotency keys.
// Not the authority for GPUs (MachineDO) nor for prices (FleetDO; an instance's price is frozen here).
// Every method that acts for a caller takes the caller's credential and checks it on the same call,
// so a request costs one round trip and a revoked key fails on its very next use.
import { DurableObject } from "cloudflare:workers";
import { fail, type Failure } from "../../core/errors.ts";
import { clock, iso } from "../../core/clock.ts";
import { instanceTokens } from "../../core/credentials.ts";
import { constantTimeEqual, sha256Hex } from "../../core/hash.ts";
import { newReferralCode } from "../../core/ids.ts";
import type { Env } from "../../core/env.ts";
import type { DesiredStateChange, MachineReport } from "../object-messages.ts";
import { Outbox } from "../outbox/outbox.ts";
import { SingleAlarm } from "../outbox/single-alarm.ts";
import { sqlFor, type Sql } from "../sql.ts";
import { nextSettlementMs, settleAll } from "./billing.ts";
import { DESTROYED_VISIBLE_MS, Expiry } from "./expiry.ts";
import * as actions from "./instance-actions.ts";
import { findInstance, listEvents, listInstances, toInstance, type Instance } from "./instance-row.ts";
import { createKey, findLiveKey, listKeys, liveKeyCount, MAX_LIVE_KEYS, revokeKey, type KeySummary } from "./keys.ts";
import type { Idempotency, LaunchPlan } from "../../core/launch-plan.ts";
import { changeBalance } from "./ledger.ts";
import { applyReports } from "./reports.ts";
import { createAccountSchema } from "./schema.ts";
import { SerialQueue } from "./serial-queue.ts";

export interface AccountInfo {
  id: string;
  referral_code: string;
  created_at: string;
  balance_micros: number;
}

type Ok<T> = { ok: true } & T;

export class AccountDO extends DurableObject<Env> {
  private readonly clock = clock;
  private readonly sql: Sql;
  private readonly queue = new SerialQueue();
  /** Desired-state changes for MachineDOs, keyed by machine id. */
  private readonly outbox: Outbox<DesiredStateChange>;
  private readonly alarms: SingleAlarm;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = sqlFor(ctx.storage);
    createAccountSchema(this.sql);
    this.outbox = new Outbox<DesiredStateChange>(this.sql, {
      name: "desired state",
      now: () => this.clock.now(),
      send: (machineId, batch) => this.env.MACHINES.getByName(machineId).applyDesiredStates(batch.map((queued) => queued.message)),
    });
    // Settlement and expiry are on this object's clock (tests move it); the alarm keeps real time.
    this.alarms = new SingleAlarm(ctx, () => this.clock.now());
    this.alarms.register(
      { nextAlarmMs: (nowMs) => nextSettlementMs(this.sql, nowMs), onAlarm: () => this.settleNow() },
      new Expiry(this.sql),
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
      return changeBalance(this.sql, { kind: amountMicros >= 0 ? "credit" : "debit", amountMicros, note, at });
    });
    this.afterChange();
    return { ok: true, balance_micros: balance };
  }

  async createApiKey(name: string): Promise<Ok<{ key: { id: string; key: string; name: string; created_at: string } }> | Failure> {
    const account = this.info();
    if (!account) return fail("not_found", "no such account");
    if (liveKeyCount(this.sql) >= MAX_LIVE_KEYS) return fail("conflict", `an account may hold at most ${MAX_LIVE_KEYS} live keys`);
    return { ok: true, key: await createKey(this.sql, account.id, name, iso(this.clock.now())) };
  }

  listApiKeys(): Ok<{ items: KeySummary[] }> | Failure {
    if (!this.info()) return fail("not_found", "no such account");
    return { ok: true, items: listKeys(this.sql) };
  }

  revokeApiKey(keyId: string): Ok<object> | Failure {
    if (!this.info()) return fail("not_found", "no such account");
    return revokeKey(this.sql, keyId, iso(this.clock.now())) ? { ok: true } : fail("not_found", `no live key ${keyId}`);
  }

  // ---- caller API (each checks the caller's key) ----

  async authenticate(key: string): Promise<boolean> {
    return this.info() !== undefined && findLiveKey(this.sql, await sha256Hex(key), iso(this.clock.now()));
  }

  async me(key: string): Promise<Ok<{ account: AccountInfo }> | Failure> {
    if (!(await this.authenticate(key))) return unauthorized();
    this.settleNow();
    return { ok: true, account: this.info()! };
  }

  async launch(key: string, plan: LaunchPlan, idem: Idempotency | null): Promise<actions.InstanceResult> {
    if (!(await this.authenticate(key))) return unauthorized();
    const result = await this.queue.run(() => actions.launch(this.context(), plan, idem));
    this.afterChange();
    return result;
  }

  async listInstances(key: string): Promise<Ok<{ items: Instance[] }> | Failure> {
    if (!(await this.authenticate(key))) return unauthorized();
    this.settleNow();
    return { ok: true, items: listInstances(this.sql).filter((row) => this.visible(row)).map(toInstance) };
  }

  async getInstance(key: string, id: string): Promise<actions.InstanceResult> {
    if (!(await this.authenticate(key))) return unauthorized();
    const row = findInstance(this.sql, id);
    if (!row || !this.visible(row)) return fail("not_found", `no instance ${id} in this account`);
    return { ok: true, instance: toInstance(row) };
  }

  async instanceEvents(key: string, id: string): Promise<Ok<{ items: { message: string; created_at: string }[] }> | Failure> {
    const found = await this.getInstance(key, id);
    return found.ok ? { ok: true, items: listEvents(this.sql, id) } : found;
  }

  async renameInstance(key: string, id: string, label: string): Promise<actions.InstanceResult> {
    const found = await this.getInstance(key, id);
    return found.ok ? this.queue.run(async () => actions.rename(this.context(), id, label)) : found;
  }

  async stopInstance(key: string, id: string): Promise<actions.InstanceResult> {
    return this.change(key, id, async () => actions.stop(this.context(), id, "Stop requested; GPUs released and billing stopped"));
  }

  async startInstance(key: string, id: string): Promise<actions.InstanceResult> {
    return this.change(key, id, () => actions.start(this.context(), id));
  }

  async destroyInstance(key: string, id: string): Promise<actions.InstanceResult> {
    return this.change(key, id, async () => actions.destroy(this.context(), id));
  }

  /** Proxy admission: an account key, or the instance's own token. */
  async openProxy(credential: string, id: string): Promise<Ok<{ machine_id: number }> | Failure> {
    const row = findInstance(this.sql, id);
    const tokenMatches = row !== undefined && instanceTokens.ownerOf(credential) !== null && constantTimeEqual(row.token, credential);
    if (!tokenMatches && !(await this.authenticate(credential))) return unauthorized();
    if (!row || !this.visible(row)) return fail("not_found", `no instance ${id} in this account`);
    if (row.status !== "running") return fail("not_running", `instance ${id} is ${row.status}, not running`);
    if (row.machine_online !== 1) return fail("upstream_unavailable", `the host of instance ${id} is offline`);
    return { ok: true, machine_id: row.machine_id! };
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
    return this.sql<AccountInfo>`SELECT id, referral_code, created_at, balance_micros FROM account`[0];
  }

  private visible(row: { destroyed_ms: number | null }): boolean {
    return row.destroyed_ms === null || row.destroyed_ms > this.clock.now() - DESTROYED_VISIBLE_MS;
  }

  private context(): actions.AccountContext {
    return {
      sql: this.sql,
      clock: this.clock,
      env: this.env,
      accountId: this.info()!.id,
      outbox: this.outbox,
      transaction: (fn) => this.ctx.storage.transactionSync(fn),
    };
  }

  private async change(key: string, id: string, action: () => Promise<actions.InstanceResult>): Promise<actions.InstanceResult> {
    if (!(await this.authenticate(key))) return unauthorized();
    const result = await this.queue.run(action);
    this.afterChange();
    return result;
  }

  /** Charges accrued time; a used-up balance stops what runs. */
  private settleNow(): void {
    this.ctx.storage.transactionSync(() => {
      if (settleAll(this.sql, this.clock.now()) <= 0) actions.stopForLackOfFunds(this.context());
    });
  }

  /** After a state change: push desired states to machines now and keep the alarm right. */
  private afterChange(): void {
    this.alarms.afterChange();
  }
}

const unauthorized = () => fail("unauthorized", "API key missing, wrong or revoked");
