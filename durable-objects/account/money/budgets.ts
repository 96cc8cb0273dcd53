// Budgets: the account's monthly budget and each API key's monthly limit over the instances it
// launched (month-spend.ts measures both). Reached, either refuses launches and starts with 402
// budget_exceeded (a key's: its own launches and starts, and starts of its instances, by anyone);
// the account's with `stop`, and a key's always, stops what it covers on the settlement that finds it
// reached, the one path that stops instances for a used-up balance too (settlement.ts). Volumes are
// kept. The thresholds and their webhook are recorded with the charges that cross them (budget-schema.ts).
import type { Env } from "../../../core/env.ts";
import { iso } from "../../../core/clock.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import type { BudgetAction, BudgetChanges, BudgetView } from "../../contracts/budgets.ts";
import type { Sql } from "../../sql.ts";
import type { Caller } from "../credentials/credential-check.ts";
import type { InstanceRow } from "../instances/instance-row.ts";
import { msUntilExhausted } from "./accrual.ts";
import { accruingInstances } from "./billing.ts";
import { recordCrossingsSql } from "./budget-schema.ts";
import { ACCOUNT, monthOf, monthSpend, settledSpend, type Spender } from "./month-spend.ts";
import { describeChanges, recordAudit } from "../audit/audit-log.ts";

/** An instance a budget stops, and why (its status message). */
export interface BudgetStop {
  row: InstanceRow;
  reason: string;
  /** The key whose limit stopped it; null: the account's budget. */
  keyId: string | null;
}

interface Settings {
  monthly_budget_micros: number | null;
  budget_action: BudgetAction;
}

function settings(sql: Sql): Settings {
  return sql<Settings>`SELECT monthly_budget_micros, budget_action FROM account`[0]!;
}

/** /v1/me's view: the budget, and the month's spend settled up to `nowMs`. */
export function budgetView(sql: Sql, env: Env, nowMs: number): BudgetView {
  return { ...settings(sql), month_spend_micros: monthSpend(sql, env, ACCOUNT, nowMs) };
}

/** Inside a transaction: the budget changed; thresholds the month's spend is already past are crossed now. */
export function changeBudget(sql: Sql, changes: BudgetChanges, nowMs: number): void {
  if (changes.monthly_budget_micros !== undefined) sql`UPDATE account SET monthly_budget_micros = ${changes.monthly_budget_micros}`;
  if (changes.budget_action !== undefined) sql`UPDATE account SET budget_action = ${changes.budget_action}`;
  recordAudit(sql, { action: "account.update", target: { type: "account", id: null }, detail: describeChanges(changes) });
  // The month's start, a number computed here: the statement holds no input.
  sql([recordCrossingsSql(String(monthOf(nowMs).startMs))] as unknown as TemplateStringsArray);
}

/** The id of the API key `caller` is; null for a person. */
export function keyIdOf(sql: Sql, caller: Caller): string | null {
  if (caller.kind !== "key") return null;
  return sql<{ id: string }>`SELECT id FROM api_keys WHERE hash = ${caller.keySha256}`[0]?.id ?? null;
}

/**
 * 402 budget_exceeded when the account's budget is reached this month, or the limit of one of `keyIds`
 * (the calling key, the instance's launching key; null: none): a launch or start would spend past it.
 */
export function budgetRefusal(sql: Sql, env: Env, keyIds: (string | null)[], nowMs: number): Failure | null {
  const until = iso(monthOf(nowMs).endMs);
  const budget = settings(sql).monthly_budget_micros;
  if (budget !== null) {
    const spent = monthSpend(sql, env, ACCOUNT, nowMs);
    if (spent >= budget) {
      return fail("budget_exceeded", `the account's monthly_budget_micros ${budget} is reached (month_spend_micros ${spent}): launches and starts are refused until ${until} or a higher budget (PATCH /v1/account)`);
    }
  }
  for (const keyId of new Set(keyIds)) {
    const limit = keyId === null ? null : keyLimit(sql, keyId);
    if (keyId === null || limit === null) continue;
    const spent = monthSpend(sql, env, { kind: "key", keyId }, nowMs);
    if (spent >= limit) {
      return fail("budget_exceeded", `API key ${keyId}'s monthly_limit_micros ${limit} is reached by the instances it launched (${spent} this month): its launches, and starts of its instances, are refused until ${until}`);
    }
  }
  return null;
}

/**
 * Inside the settlement's transaction, the ledger settled up to `nowMs`: the instances meant to run
 * that a reached budget stops. The account's budget with `stop`: all of them; a key's limit: those it launched.
 */
export function budgetStops(sql: Sql, nowMs: number): BudgetStop[] {
  const month = monthOf(nowMs);
  const reached = (spender: Spender, limit: number) => settledSpend(sql, spender, month) >= limit;
  const { monthly_budget_micros: budget, budget_action: action } = settings(sql);
  const live = runningRows(sql);
  if (budget !== null && action === "stop" && reached(ACCOUNT, budget)) {
    return live.map((row) => ({ row, reason: "the account's monthly budget is reached", keyId: null }));
  }
  const stops: BudgetStop[] = [];
  for (const { id, monthly_limit_micros: limit } of limitedKeys(sql)) {
    if (!live.some((row) => row.launched_by_key === id) || !reached({ kind: "key", keyId: id }, limit)) continue;
    for (const row of live.filter((r) => r.launched_by_key === id)) stops.push({ row, reason: `its API key's monthly limit is reached (${id})`, keyId: id });
  }
  return stops;
}

/**
 * When the settlement should look again because a budget that stops may be reached: when the account's
 * budget with `stop`, or a key's limit, would be at the instances' rate (the alarm's minute bounds it too).
 */
export function nextBudgetStopMs(sql: Sql, env: Env, nowMs: number): number | null {
  const accruing = accruingInstances(sql);
  if (accruing.length === 0) return null;
  const due: number[] = [];
  const burn = (rows: InstanceRow[]) => rows.reduce((sum, row) => sum + row.price_hour_micros, 0);
  const { monthly_budget_micros: budget, budget_action: action } = settings(sql);
  if (budget !== null && action === "stop") {
    due.push(nowMs + msUntilExhausted(budget - monthSpend(sql, env, ACCOUNT, nowMs), burn(accruing)));
  }
  for (const { id, monthly_limit_micros: limit } of limitedKeys(sql)) {
    const rows = accruing.filter((row) => row.launched_by_key === id);
    if (rows.length > 0) due.push(nowMs + msUntilExhausted(limit - monthSpend(sql, env, { kind: "key", keyId: id }, nowMs), burn(rows)));
  }
  return due.length === 0 ? null : Math.min(...due);
}

function keyLimit(sql: Sql, keyId: string): number | null {
  return sql<{ limit: number | null }>`SELECT monthly_limit_micros AS "limit" FROM api_keys WHERE id = ${keyId}`[0]?.limit ?? null;
}

/** Keys with a limit, revoked or not: the instances a revoked key launched still count against it. */
function limitedKeys(sql: Sql): { id: string; monthly_limit_micros: number }[] {
  return sql<{ id: string; monthly_limit_micros: number }>`SELECT id, monthly_limit_micros FROM api_keys WHERE monthly_limit_micros IS NOT NULL ORDER BY id`;
}

/** The instances meant to run, as a used-up balance stops them. */
function runningRows(sql: Sql): InstanceRow[] {
  return sql<InstanceRow>`SELECT * FROM instances WHERE desired_state = 'running'
                          AND status IN ('running', 'starting', 'creating') AND machine_id IS NOT NULL ORDER BY created_ms, id`;
}
