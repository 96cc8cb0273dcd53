// Usage summed from the hourly charge rows (charge-rows.ts): running time and cost by day and
// instance, or by instance; and apart from them, from the hourly storage rows
// (volumes/storage-charges.ts), the volumes' stored time and cost by day and volume, or by volume. A
// row never spans two clock hours, so it falls on one day and the sums are exact. Rows of an hour still open count as settled so far; the pending amount of the
// ledger's first page does not (it is not stored).
import type { Sql } from "../../sql.ts";

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

export interface StorageUsageItem {
  /** `YYYY-MM-DD` (UTC) with group=day; null with group=instance. */
  day: string | null;
  volume_id: string;
  /** The volume's name now, or as it was charged once it is deleted. */
  name: string;
  seconds: number;
  amount_micros: number;
}

export interface UsageReport {
  items: UsageItem[];
  storage: StorageUsageItem[];
  /** The instances' and the storage's amounts together. */
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
  const storage = sql<StorageUsageItem>`
    SELECT CASE WHEN ${byDay} = 1 THEN date(ledger.span_start_ms / 1000, 'unixepoch') END AS day,
           ledger.volume_id, COALESCE(volumes.name, ledger.label) AS name,
           SUM(ledger.span_end_ms - ledger.span_start_ms) / 1000 AS seconds, -SUM(ledger.amount_micros) AS amount_micros
    FROM ledger LEFT JOIN volumes ON volumes.id = ledger.volume_id
    WHERE ledger.kind = 'storage' AND ledger.span_start_ms >= ${query.fromMs} AND ledger.span_start_ms < ${query.toMs}
    GROUP BY day, ledger.volume_id
    ORDER BY day, name, ledger.volume_id`;
  const total = [...items, ...storage].reduce((sum, item) => sum + item.amount_micros, 0);
  return { items, storage, total_micros: total };
}
