// An instance's running time as the ledger shows it: one charge row per instance per clock hour
// (UTC). Settlements within the hour add to that hour's open row (`instances.open_charge_seq`), so
// its amount and balance grow while its id and place in the pages stay; the row closes at the hour
// or when the instance stops accruing (a stop, a destroy, its host going away), and a closed row
// never changes again. Written only by billing.ts, inside the settlement's transaction.
import type { Sql } from "../../sql.ts";
import { MS_PER_HOUR } from "./accrual.ts";
import type { InstanceRow } from "../instances/instance-row.ts";
import { growCharge, openCharge } from "./ledger.ts";

/** The hour-aligned pieces of [fromMs, untilMs): a charge row never spans two clock hours. */
export function hourSpans(fromMs: number, untilMs: number): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (let start = fromMs; start < untilMs; ) {
    const end = Math.min(untilMs, hourOf(start) + MS_PER_HOUR);
    spans.push([start, end]);
    start = end;
  }
  return spans;
}

/** Charges `amountMicros` for [startMs, endMs) of `row`, on its open row for that hour or a new one. */
export function chargeSpan(sql: Sql, row: InstanceRow, startMs: number, endMs: number, amountMicros: number): void {
  const open = openRowOf(sql, row.id);
  let seq: number;
  if (open !== null && hourOf(open.span_start_ms) === hourOf(startMs)) {
    seq = open.seq;
    growCharge(sql, seq, -amountMicros, endMs, spanNote(open.span_start_ms, endMs, row));
  } else {
    seq = openCharge(sql, -amountMicros, {
      instanceId: row.id, label: row.label, gpuModel: row.gpu_model, gpuCount: row.gpu_count,
      startMs, endMs, note: spanNote(startMs, endMs, row),
    });
  }
  const closed = endMs === hourOf(startMs) + MS_PER_HOUR;
  sql`UPDATE instances SET open_charge_seq = ${closed ? null : seq} WHERE id = ${row.id}`;
}

/** The instance stopped accruing: its hour's row is closed, and a later start opens a new one. */
export function closeCharge(sql: Sql, instanceId: string): void {
  sql`UPDATE instances SET open_charge_seq = NULL WHERE id = ${instanceId}`;
}

/** `12:00–13:00 UTC, 1 × rtx4090`: the span a charge row covers, to the minute. */
export function spanNote(startMs: number, endMs: number, row: Pick<InstanceRow, "gpu_count" | "gpu_model">): string {
  return `${clockTime(startMs)}–${clockTime(endMs)} UTC, ${row.gpu_count} × ${row.gpu_model}`;
}

export const hourOf = (ms: number) => ms - (ms % MS_PER_HOUR);

const clockTime = (ms: number) => new Date(ms).toISOString().slice(11, 16);

function openRowOf(sql: Sql, instanceId: string): { seq: number; span_start_ms: number } | null {
  const [open] = sql<{ seq: number; span_start_ms: number }>`
    SELECT ledger.seq, ledger.span_start_ms FROM instances JOIN ledger ON ledger.seq = instances.open_charge_seq
    WHERE instances.id = ${instanceId}`;
  return open ?? null;
}
