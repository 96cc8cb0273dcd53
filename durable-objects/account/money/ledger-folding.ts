// Accounts from before hourly charge rows (charge-rows.ts) hold a charge row per settlement, one a
// minute per instance and more for every read. Once, on upgrade, each instance's rows of one clock
// hour become one row: in the place (sequence number) of the hour's first, with the sum of their
// amounts and the balance after the hour's last, so every sum and every balance stays exact. An
// instance still accruing in the hour it was last charged keeps that row open.
import type { Sql } from "../../sql.ts";
import { MS_PER_HOUR } from "./accrual.ts";
import { hourOf, spanNote } from "./charge-rows.ts";

interface LegacyCharge {
  seq: number;
  amount_micros: number;
  balance_after_micros: number;
  instance_id: string;
  note: string;
  created_at: string;
}

interface InstanceFacts {
  label: string;
  gpu_model: string;
  gpu_count: number;
  price_hour_micros: number;
  billed_until_ms: number | null;
}

/** The note of those rows: `<gpu_count> x <gpu_model> until <time>`. */
const LEGACY_NOTE = /^(\d+) x (.+) until /;

export function foldLegacyCharges(sql: Sql): void {
  const rows = sql<LegacyCharge>`SELECT seq, amount_micros, balance_after_micros, instance_id, note, created_at
                                 FROM ledger WHERE kind = 'charge' AND span_start_ms IS NULL ORDER BY seq`;
  const hours = new Map<string, LegacyCharge[]>();
  for (const row of rows) {
    // A legacy row's time is the end of what it charged: one ending on the hour belongs to the hour before.
    const key = `${row.instance_id} ${hourOf(Date.parse(row.created_at) - 1)}`;
    hours.set(key, [...(hours.get(key) ?? []), row]);
  }
  for (const group of hours.values()) foldHour(sql, group);
}

function foldHour(sql: Sql, group: LegacyCharge[]): void {
  const first = group[0]!;
  const last = group.at(-1)!;
  const endMs = Date.parse(last.created_at);
  const hourStartMs = hourOf(endMs - 1);
  const amount = group.reduce((sum, row) => sum + row.amount_micros, 0);
  const [facts] = sql<InstanceFacts>`SELECT label, gpu_model, gpu_count, price_hour_micros, billed_until_ms FROM instances WHERE id = ${first.instance_id}`;
  const parsed = LEGACY_NOTE.exec(first.note);
  const gpuCount = facts?.gpu_count ?? Number(parsed?.[1] ?? 0);
  const gpuModel = facts?.gpu_model ?? parsed?.[2] ?? "";
  // The running time the amount paid for, at the instance's frozen price; without the instance
  // (forgotten a week after it was destroyed), from its first settlement in the hour.
  const startMs = facts && facts.price_hour_micros > 0
    ? Math.max(hourStartMs, endMs - msPaidFor(-amount, facts.price_hour_micros))
    : Math.max(hourStartMs, Date.parse(first.created_at));
  const note = spanNote(startMs, endMs, { gpu_count: gpuCount, gpu_model: gpuModel });
  sql`UPDATE ledger SET amount_micros = ${amount}, balance_after_micros = ${last.balance_after_micros}, note = ${note},
        created_at = ${new Date(startMs).toISOString()}, span_start_ms = ${startMs}, span_end_ms = ${endMs},
        label = ${facts?.label ?? first.instance_id}, gpu_model = ${gpuModel}, gpu_count = ${gpuCount}
      WHERE seq = ${first.seq}`;
  for (const folded of group.slice(1)) sql`DELETE FROM ledger WHERE seq = ${folded.seq}`;
  if (facts?.billed_until_ms === endMs && endMs < hourStartMs + MS_PER_HOUR) {
    sql`UPDATE instances SET open_charge_seq = ${first.seq} WHERE id = ${first.instance_id}`;
  }
}

/** Milliseconds of running time that `micros` buys at `priceHourMicros`, rounded up. */
function msPaidFor(micros: number, priceHourMicros: number): number {
  const price = BigInt(priceHourMicros);
  return Number((BigInt(micros) * BigInt(MS_PER_HOUR) + price - 1n) / price);
}
