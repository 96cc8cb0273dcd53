// The ledger as a customer reads it: newest first, in pages. A page continues strictly below the
// last row of the one before (keyset pagination on the row's sequence number), so rows written
// between two reads (charges settle every minute) never make a page repeat or skip a row.
import type { Sql } from "../sql.ts";
import type { LedgerKind } from "./ledger.ts";

export interface LedgerEntry {
  id: number;
  created_at: string;
  kind: LedgerKind;
  amount_micros: number;
  balance_after_micros: number;
  instance_id: string | null;
  note: string;
}

/** Up to `limit` entries older than `before` (an entry id; null for the newest), and the cursor of the next page. */
export function ledgerPage(sql: Sql, limit: number, before: number | null): { items: LedgerEntry[]; next_cursor: string | null } {
  const rows = sql<LedgerEntry>`
    SELECT seq AS id, created_at, kind, amount_micros, balance_after_micros, instance_id, note FROM ledger
    WHERE seq < ${before ?? Number.MAX_SAFE_INTEGER} ORDER BY seq DESC LIMIT ${limit + 1}`;
  const items = rows.slice(0, limit);
  return { items, next_cursor: rows.length > limit ? String(items.at(-1)!.id) : null };
}
