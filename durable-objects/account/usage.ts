// Usage summed from the hourly charge rows (charge-rows.ts): running time and cost by day and
// instance, or by instance. A charge row never spans two clock hours, so a row falls on one day and
// the sums are exact. Rows of an hour still open count as settled so far; the pending amount of the
// ledger's first page does not (it is not stored).
import type { Sql } from "../sql.ts";

/** [fromMs, toMs): whole UTC days, checked by the Worker (at most 93 of them). */
export interface UsageQuery {
  fromMs: number;
  toMs: number;
  group: "day" | "instance";
}

export interface UsageItem {
  /** `YYYY-MM-DD` (UTC) with group=day; null with group=instance. */
  day: string | null;
  instance_id: string;
  label: string;
  gpu_model: string;
  gpu_count: number;
  seconds: number;
  amount_micros: number;
}

export interface UsageReport {
  items: UsageItem[];
  total_micros: number;
}

export function usageReport(sql: Sql, query: UsageQuery): UsageReport {
  const byDay = query.group === "day" ? 1 : 0;
  // The instance's label now, or as it was charged once the instance is forgotten (expiry.ts).
  const items = sql<UsageItem>`
    SELECT CASE WHEN ${byDay} = 1 THEN date(ledger.span_start_ms / 1000, 'unixepoch') END AS day,
           ledger.instance_id, COALESCE(instances.label, ledger.label) AS label, ledger.gpu_model, ledger.gpu_count,
           SUM(ledger.span_end_ms - ledger.span_start_ms) / 1000 AS seconds, -SUM(ledger.amount_micros) AS amount_micros
    FROM ledger LEFT JOIN instances ON instances.id = ledger.instance_id
    WHERE ledger.kind = 'charge' AND ledger.span_start_ms >= ${query.fromMs} AND ledger.span_start_ms < ${query.toMs}
    GROUP BY day, ledger.instance_id
    ORDER BY day, label, ledger.instance_id`;
  return { items, total_micros: items.reduce((sum, item) => sum + item.amount_micros, 0) };
}
