// The month's spend a budget is measured against: the instance charge and storage rows of one UTC
// calendar month (the account's), or the charge rows of the instances one API key launched (the
// key's: `launched_by_key`, copied onto each charge row so it outlives the instance's row). A row
// never spans two clock hours (charge-rows.ts), so it falls in one month and the sums are exact. What
// has accrued since the last settlement is added as settling would write it, hour by hour, so a read
// writes nothing and the next settlement lands exactly on the figure it showed.
import type { Env } from "../../../core/env.ts";
import { volumePriceGbMonthMicros } from "../../../core/volume-prices.ts";
import type { Sql } from "../../sql.ts";
import { accrue } from "./accrual.ts";
import { accruingInstances } from "./billing.ts";
import { hourSpans } from "./charge-rows.ts";
import { accrueStorage } from "../volumes/storage-accrual.ts";

/** A UTC calendar month: `2025-03`, and its first and following month's first millisecond. */
export interface Month {
  label: string;
  startMs: number;
  endMs: number;
}

export function monthOf(ms: number): Month {
  const at = new Date(ms);
  const startMs = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1);
  const endMs = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
  return { label: new Date(startMs).toISOString().slice(0, 7), startMs, endMs };
}

/** Whose spend: the account's (instances and storage), or one key's (the instances it launched). */
export type Spender = { kind: "account" } | { kind: "key"; keyId: string };

export const ACCOUNT: Spender = { kind: "account" };

/** The account's spend this month (instances and storage), settled up to `nowMs` (writing nothing): /v1/me's and /v1/metrics' figure. */
export const monthSpendMicros = (sql: Sql, env: Env, nowMs: number): number => monthSpend(sql, env, ACCOUNT, nowMs);

/** The month's spend of `spender` in micro-dollars, settled up to `nowMs` (writing nothing). */
export function monthSpend(sql: Sql, env: Env, spender: Spender, nowMs: number): number {
  const month = monthOf(nowMs);
  return settledSpend(sql, spender, month) + pendingInstances(sql, spender, month, nowMs) + (spender.kind === "account" ? pendingStorage(sql, env, month, nowMs) : 0);
}

/** What the ledger holds for the month: right after a settlement, the whole spend. */
export function settledSpend(sql: Sql, spender: Spender, month: Month): number {
  const [row] = spender.kind === "account"
    ? sql<{ spent: number }>`SELECT COALESCE(-SUM(amount_micros), 0) AS spent FROM ledger
        WHERE kind IN ('charge', 'storage') AND span_start_ms >= ${month.startMs} AND span_start_ms < ${month.endMs}`
    : sql<{ spent: number }>`SELECT COALESCE(-SUM(amount_micros), 0) AS spent FROM ledger
        WHERE kind = 'charge' AND launched_by_key = ${spender.keyId} AND span_start_ms >= ${month.startMs} AND span_start_ms < ${month.endMs}`;
  return row?.spent ?? 0;
}

function pendingInstances(sql: Sql, spender: Spender, month: Month, nowMs: number): number {
  let pending = 0;
  for (const row of accruingInstances(sql)) {
    if (spender.kind === "key" && row.launched_by_key !== spender.keyId) continue;
    let carry = row.carry;
    for (const [startMs, endMs] of hourSpans(row.billed_until_ms!, nowMs)) {
      const accrual = accrue(row.price_hour_micros, endMs - startMs, carry);
      carry = accrual.carry;
      if (startMs >= month.startMs) pending += accrual.chargeMicros;
    }
  }
  return pending;
}

function pendingStorage(sql: Sql, env: Env, month: Month, nowMs: number): number {
  const price = volumePriceGbMonthMicros(env);
  let pending = 0;
  const volumes = sql<{ stored_bytes: number; billed_until_ms: number; storage_carry: string }>`
    SELECT stored_bytes, billed_until_ms, storage_carry FROM volumes WHERE billed_until_ms < ${nowMs} AND stored_bytes > 0`;
  for (const volume of volumes) {
    let carry = BigInt(volume.storage_carry);
    for (const [startMs, endMs] of hourSpans(volume.billed_until_ms, nowMs)) {
      const accrual = accrueStorage(volume.stored_bytes, price, endMs - startMs, carry);
      carry = accrual.carry;
      if (startMs >= month.startMs) pending += accrual.chargeMicros;
    }
  }
  return pending;
}
