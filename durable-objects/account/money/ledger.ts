// The only code that changes an account's balance: every change is a ledger row written (or, for an
// instance's open hourly charge, grown) in the same transaction, so the balance always equals the
// sum of the ledger; each row keeps the balance after its last change.
import type { Sql } from "../../sql.ts";

/**
 * `charge`: an instance's running time, `storage`: a volume's stored bytes (volumes/storage-charges.ts), one row per
 * instance or volume and clock hour; `payment` and `refund`: money in through Stripe, and back out (payments.ts);
 * `dispute`: taken by a dispute, or given back when it is won (disputes.ts).
 */
export type LedgerKind = "credit" | "debit" | "charge" | "storage" | "payment" | "refund" | "dispute";

/** A balance stays within ±$1 billion, so sums of balances and amounts stay exact integers (below 2^53). */
export const MAX_BALANCE_MICROS = 1e15;

export function changeBalance(
  sql: Sql,
  change: { kind: Exclude<LedgerKind, "charge" | "storage">; amountMicros: number; note: string; at: string },
): number {
  const after = balanceAfter(sql, change.amountMicros);
  sql`INSERT INTO ledger (kind, amount_micros, balance_after_micros, instance_id, note, created_at)
      VALUES (${change.kind}, ${change.amountMicros}, ${after}, NULL, ${change.note}, ${change.at})`;
  return after;
}

/** What an hourly charge row (charge-rows.ts) records beside its amount. */
export interface ChargeSpan {
  instanceId: string;
  label: string;
  gpuModel: string;
  gpuCount: number;
  startMs: number;
  endMs: number;
  note: string;
}

/** A new charge row of `amountMicros` (≤ 0) for `span`, with the key that launched its instance (budgets.ts); its sequence number. */
export function openCharge(sql: Sql, amountMicros: number, span: ChargeSpan): number {
  const after = balanceAfter(sql, amountMicros);
  const [row] = sql<{ seq: number }>`
    INSERT INTO ledger (kind, amount_micros, balance_after_micros, instance_id, note, created_at,
                        span_start_ms, span_end_ms, label, gpu_model, gpu_count, launched_by_key)
    VALUES ('charge', ${amountMicros}, ${after}, ${span.instanceId}, ${span.note}, ${new Date(span.startMs).toISOString()},
            ${span.startMs}, ${span.endMs}, ${span.label}, ${span.gpuModel}, ${span.gpuCount},
            (SELECT launched_by_key FROM instances WHERE id = ${span.instanceId}))
    RETURNING seq`;
  return row!.seq;
}

/** What an hourly storage row (volumes/storage-charges.ts) records beside its amount: the volume, and its name as charged. */
export interface StorageSpan {
  volumeId: string;
  label: string;
  startMs: number;
  endMs: number;
  note: string;
}

/** A new storage row of `amountMicros` (≤ 0) for `span`; its sequence number. */
export function openStorageCharge(sql: Sql, amountMicros: number, span: StorageSpan): number {
  const after = balanceAfter(sql, amountMicros);
  const [row] = sql<{ seq: number }>`
    INSERT INTO ledger (kind, amount_micros, balance_after_micros, volume_id, note, created_at, span_start_ms, span_end_ms, label)
    VALUES ('storage', ${amountMicros}, ${after}, ${span.volumeId}, ${span.note}, ${new Date(span.startMs).toISOString()},
            ${span.startMs}, ${span.endMs}, ${span.label})
    RETURNING seq`;
  return row!.seq;
}

/** Adds `amountMicros` (≤ 0) to the open charge or storage row `seq`, which now covers up to `endMs`. */
export function growCharge(sql: Sql, seq: number, amountMicros: number, endMs: number, note: string): void {
  const after = balanceAfter(sql, amountMicros);
  sql`UPDATE ledger SET amount_micros = amount_micros + ${amountMicros}, balance_after_micros = ${after},
        span_end_ms = ${endMs}, note = ${note} WHERE seq = ${seq}`;
}

/** The balance after a change of `amountMicros`, stored on the account. */
function balanceAfter(sql: Sql, amountMicros: number): number {
  if (!Number.isSafeInteger(amountMicros)) throw new Error("balance change must be a safe integer");
  const after = balanceOf(sql) + amountMicros;
  if (!Number.isSafeInteger(after)) throw new Error("balance must stay a safe integer");
  sql`UPDATE account SET balance_micros = ${after}`;
  return after;
}

export function balanceOf(sql: Sql): number {
  const [row] = sql<{ balance_micros: number }>`SELECT balance_micros FROM account`;
  return row?.balance_micros ?? 0;
}
