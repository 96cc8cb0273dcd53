// The only code that changes an account's balance: every change is a ledger row written in the same
// transaction, so the balance always equals the sum of the ledger; each row keeps the balance after it.
import type { Sql } from "../sql.ts";

/** `payment` and `refund`: money in through Stripe, and back out (payments.ts). */
export type LedgerKind = "credit" | "debit" | "charge" | "payment" | "refund";

/** A balance stays within ±$1 billion, so sums of balances and amounts stay exact integers (below 2^53). */
export const MAX_BALANCE_MICROS = 1e15;

export function changeBalance(
  sql: Sql,
  change: { kind: LedgerKind; amountMicros: number; instanceId?: string; note: string; at: string },
): number {
  if (!Number.isSafeInteger(change.amountMicros)) throw new Error("balance change must be a safe integer");
  const after = balanceOf(sql) + change.amountMicros;
  if (!Number.isSafeInteger(after)) throw new Error("balance must stay a safe integer");
  sql`INSERT INTO ledger (kind, amount_micros, balance_after_micros, instance_id, note, created_at)
      VALUES (${change.kind}, ${change.amountMicros}, ${after}, ${change.instanceId ?? null}, ${change.note}, ${change.at})`;
  sql`UPDATE account SET balance_micros = ${after}`;
  return after;
}

export function balanceOf(sql: Sql): number {
  const [row] = sql<{ balance_micros: number }>`SELECT balance_micros FROM account`;
  return row?.balance_micros ?? 0;
}
