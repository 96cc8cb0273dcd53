// Billing: an instance accrues its frozen hourly price while it is `running` on an online host.
// `billed_until_ms` is the instant up to which it has been charged (null while not accruing), and
// `carry` the sub-micro-dollar remainder; charges land on one row per instance and clock hour
// (charge-rows.ts). Settling is synchronous SQL, so it never interleaves. The alarm settles at least
// every minute; a read shows the balance settled up to now without writing (balanceAt), so reads put
// no ledger row and no storage commit on the caller's answer.
import type { Sql } from "../../sql.ts";
import { accrue, msUntilExhausted } from "./accrual.ts";
import type { InstanceRow } from "../instances/instance-row.ts";
import { chargeSpan, closeCharge, hourSpans } from "./charge-rows.ts";
import { balanceOf } from "./ledger.ts";

/** The most time an alarm lets pass between settlements while anything accrues. */
export const SETTLE_EVERY_MS = 60_000;

/**
 * Charges `row` up to `untilMs` and leaves it accruing from there (or stopped when `keepAccruing` is
 * false). Each clock hour is accrued on its own, carrying the remainder, so the hour's charge row
 * holds exactly that hour's cost (charge-rows.ts) and the sum is what one accrual would give.
 */
export function settleInstance(sql: Sql, row: InstanceRow, untilMs: number, keepAccruing: boolean): void {
  let carry = row.carry;
  let billedUntil = row.billed_until_ms;
  if (billedUntil !== null && untilMs > billedUntil) {
    for (const [startMs, endMs] of hourSpans(billedUntil, untilMs)) {
      const accrual = accrue(row.price_hour_micros, endMs - startMs, carry);
      carry = accrual.carry;
      chargeSpan(sql, row, startMs, endMs, accrual.chargeMicros);
    }
    billedUntil = untilMs;
  }
  if (!keepAccruing) closeCharge(sql, row.id);
  const next = keepAccruing ? (billedUntil ?? untilMs) : null;
  sql`UPDATE instances SET billed_until_ms = ${next}, carry = ${carry} WHERE id = ${row.id}`;
}

/** Starts accrual at `fromMs` if the instance is billable and not accruing yet. */
export function startAccruing(sql: Sql, instanceId: string, fromMs: number): void {
  sql`UPDATE instances SET billed_until_ms = ${fromMs}
      WHERE id = ${instanceId} AND billed_until_ms IS NULL AND status = 'running' AND machine_online = 1`;
}

export function accruingInstances(sql: Sql): InstanceRow[] {
  return sql<InstanceRow>`SELECT * FROM instances WHERE billed_until_ms IS NOT NULL`;
}

/** Charges every accruing instance up to `nowMs`. Returns the balance after. */
export function settleAll(sql: Sql, nowMs: number): number {
  for (const row of accruingInstances(sql)) settleInstance(sql, row, nowMs, true);
  return balanceOf(sql);
}

/**
 * The balance as settling every accruing instance up to `nowMs` would leave it, without writing:
 * each instance's charge is the one settleInstance would write, so a settlement at `nowMs` lands on
 * exactly this figure and the ledger still sums to the stored balance.
 */
export function balanceAt(sql: Sql, nowMs: number): number {
  let balance = balanceOf(sql);
  for (const row of accruingInstances(sql)) {
    if (row.billed_until_ms !== null && nowMs > row.billed_until_ms) {
      balance -= accrue(row.price_hour_micros, nowMs - row.billed_until_ms, row.carry).chargeMicros;
    }
  }
  return balance;
}

/** When the next settlement is due: within a minute, or when the balance would run out. */
export function nextSettlementMs(sql: Sql, nowMs: number): number | null {
  const rows = accruingInstances(sql);
  if (rows.length === 0) return null;
  const burn = rows.reduce((sum, row) => sum + row.price_hour_micros, 0);
  return nowMs + Math.min(SETTLE_EVERY_MS, msUntilExhausted(balanceOf(sql), burn));
}
