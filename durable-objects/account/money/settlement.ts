// Settling the account's billing (instances' running time, billing.ts; volumes' stored bytes,
// volumes/storage-charges.ts), and what a used-up balance does: every instance meant to run is
// stopped, its host told through the outbox, and the volumes' grace begins (volumes/storage-grace.ts);
// a balance above zero again ends that grace. A reached budget that stops (budgets.ts) stops what it
// covers on this same path. The alarm settles at least every minute (billing.ts);
// a caller's request that notices a used-up balance is answered only once the hosts have the stops,
// so the proxy refuses the very next request. Reads (the balance, the ledger) show what has accrued
// up to now without writing.
import { clock, iso } from "../../../core/clock.ts";
import type { Env } from "../../../core/env.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import type { Delivery } from "../../outbox/outbox.ts";
import type { AlarmCapability, SingleAlarm } from "../../outbox/single-alarm.ts";
import type { AccountInfo } from "../../contracts/accounts.ts";
import type { Sql } from "../../sql.ts";
import type { AccountRecord } from "../account-record.ts";
import { balanceAt, nextSettlementMs, settleAll } from "./billing.ts";
import type { BudgetChanges, BudgetView } from "../../contracts/budgets.ts";
import { budgetStops, budgetView, changeBudget, nextBudgetStopMs } from "./budgets.ts";
import { STOP_PENDING_MESSAGE, type InstanceActions } from "../instances/instance-actions.ts";
import { balanceOf, changeBalance, MAX_BALANCE_MICROS } from "./ledger.ts";
import { ledgerPage, type LedgerPageOf } from "./ledger-page.ts";
import type { MachineDirectives } from "../machine-directives.ts";
import { Payments } from "./payments.ts";
import { nextStorageSettlementMs, pendingStorage, settleStorage } from "../volumes/storage-charges.ts";
import { applyBalanceToVolumes, graceDueMs } from "../volumes/storage-grace.ts";
import { recordAudit } from "../audit/audit-log.ts";

export interface SettlementParts {
  sql: Sql;
  env: Env;
  transaction<T>(fn: () => T): T;
  record: AccountRecord;
  instances: InstanceActions;
  directives: MachineDirectives;
  alarms: SingleAlarm;
}

export class Settlement implements AlarmCapability {
  private readonly parts: SettlementParts;
  /** Stripe's payments and refunds, which change the balance as credits do (payments.ts). */
  readonly payments: Payments;

  constructor(parts: SettlementParts) {
    this.parts = parts;
    this.payments = new Payments({ sql: parts.sql, transaction: parts.transaction, settleNow: () => void this.settleNow() });
  }

  nextAlarmMs(nowMs: number): number | null {
    const { sql, env } = this.parts;
    const balance = balanceOf(sql);
    const due = [nextSettlementMs(sql, nowMs), nextStorageSettlementMs(sql, env, nowMs, balance), graceDueMs(sql, balance, nowMs), nextBudgetStopMs(sql, env, nowMs)]
      .filter((at) => at !== null);
    return due.length === 0 ? null : Math.min(...due);
  }

  onAlarm(): void {
    this.settleNow();
  }

  /**
   * Charges accrued time and storage; a used-up balance stops what runs and begins the volumes' grace,
   * one above zero ends it; a reached budget that stops stops what it covers. Returns the stops, for their hosts.
   */
  settleNow(): Delivery[] {
    const { sql, env } = this.parts;
    return this.parts.transaction(() => {
      const nowMs = clock.now();
      settleAll(sql, nowMs);
      settleStorage(sql, env, nowMs);
      const balance = balanceOf(sql);
      applyBalanceToVolumes(sql, env, balance, nowMs);
      return balance <= 0 ? this.parts.instances.stopForLackOfFunds() : this.parts.instances.stopForBudget(budgetStops(sql, nowMs));
    });
  }

  /**
   * The balance settled up to now, for a read that writes nothing; null when it is used up, where the
   * read must settle for real (settleForRequest) so what runs is stopped before it answers.
   */
  balanceForRead(): number | null {
    const nowMs = clock.now();
    const balance = balanceAt(this.parts.sql, nowMs) - (pendingStorage(this.parts.sql, this.parts.env, nowMs)?.micros ?? 0);
    return balance > 0 ? balance : null;
  }

  /** Settles for a caller's request: a stop it causes is acknowledged by the hosts before the answer. */
  async settleForRequest(): Promise<Failure | null> {
    const stops = this.settleNow();
    if (stops.length === 0) return null;
    const failure = await this.parts.directives.confirm(stops, STOP_PENDING_MESSAGE);
    this.parts.alarms.afterChange();
    return failure;
  }

  /** The account with its balance as a read shows it: settled up to now (for real only when used up). */
  async accountAsRead(): Promise<{ ok: true; account: AccountInfo } | Failure> {
    const balance = this.balanceForRead();
    if (balance !== null) return { ok: true, account: { ...this.parts.record.info()!, balance_micros: balance } };
    return (await this.settleForRequest()) ?? { ok: true, account: this.parts.record.info()! };
  }

  /** /v1/me's budget and month's spend, settled up to now without writing. */
  budgetView(): BudgetView {
    return budgetView(this.parts.sql, this.parts.env, clock.now());
  }

  /** The budget changed, and settled for it: a budget that stops, already reached, stops what runs before the answer. */
  async changeBudget(changes: BudgetChanges): Promise<Failure | null> {
    this.parts.transaction(() => changeBudget(this.parts.sql, changes, clock.now()));
    return this.settleForRequest();
  }

  /** A page of the ledger (ledger-page.ts): it writes nothing, unless the balance is used up (settleForRead). */
  async ledgerPage(limit: number, before: number | null): Promise<({ ok: true } & LedgerPageOf) | Failure> {
    return (await this.settleForRead()) ?? { ok: true, ...ledgerPage(this.parts.sql, this.parts.env, clock.now(), limit, before) };
  }

  /** For a read: settles for real only when the balance is used up (see balanceForRead). */
  settleForRead(): Promise<Failure | null> {
    return this.balanceForRead() === null ? this.settleForRequest() : Promise.resolve(null);
  }

  /** The operator's credit (or debit, when negative), on a balance settled first; the balance after. */
  credit(amountMicros: number, note: string): { ok: true; balance_micros: number } | Failure {
    const { sql } = this.parts;
    const balance = this.parts.transaction(() => {
      const nowMs = clock.now();
      settleAll(sql, nowMs);
      settleStorage(sql, this.parts.env, nowMs);
      if (Math.abs(balanceOf(sql) + amountMicros) > MAX_BALANCE_MICROS) return null;
      const after = changeBalance(sql, { kind: amountMicros >= 0 ? "credit" : "debit", amountMicros, note, at: iso(nowMs) });
      recordAudit(sql, { action: amountMicros >= 0 ? "balance.credit" : "balance.debit", target: { type: "account", id: null }, detail: `${amountMicros} micros: ${note}` });
      applyBalanceToVolumes(sql, this.parts.env, after, nowMs);
      return after;
    });
    if (balance === null) return fail("invalid", `amount_micros: the balance would go beyond ±${MAX_BALANCE_MICROS} micro-dollars`);
    return { ok: true, balance_micros: balance };
  }
}
