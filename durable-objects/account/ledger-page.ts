// The ledger as a customer reads it: newest first, in pages. A page continues strictly below the
// last row of the one before (keyset pagination on the row's sequence number), so rows written
// between two reads never make a page repeat or skip a row. Reading writes nothing: what has
// accrued since the last settlement leads the first page as a computed `pending` entry.
import type { Sql } from "../sql.ts";
import { accruingInstances, balanceAt } from "./billing.ts";
import { balanceOf, type LedgerKind } from "./ledger.ts";

export interface LedgerEntry {
  id: number;
  created_at: string;
  kind: LedgerKind;
  amount_micros: number;
  balance_after_micros: number;
  instance_id: string | null;
  note: string;
  pending: boolean;
}

export interface LedgerPageOf {
  items: LedgerEntry[];
  next_cursor: string | null;
}

/** Up to `limit` entries older than `before` (an entry id; null for the newest, led by the pending entry). */
export function ledgerPage(sql: Sql, nowMs: number, limit: number, before: number | null): LedgerPageOf {
  const pending = before === null ? pendingEntry(sql, nowMs) : null;
  if (pending === null) return storedPage(sql, limit, before);
  if (limit === 1) return { items: [pending], next_cursor: balanceRows(sql) > 0 ? String(pending.id) : null };
  const stored = storedPage(sql, limit - 1, null);
  return { items: [pending, ...stored.items], next_cursor: stored.next_cursor };
}

function storedPage(sql: Sql, limit: number, before: number | null): LedgerPageOf {
  const rows = sql<Omit<LedgerEntry, "pending">>`
    SELECT seq AS id, created_at, kind, amount_micros, balance_after_micros, instance_id, note FROM ledger
    WHERE seq < ${before ?? Number.MAX_SAFE_INTEGER} ORDER BY seq DESC LIMIT ${limit + 1}`;
  const items = rows.slice(0, limit).map((row) => ({ ...row, pending: false }));
  return { items, next_cursor: rows.length > limit ? String(items.at(-1)!.id) : null };
}

/**
 * What the running instances have accrued since they were last settled, as settling now would
 * charge it (the figure GET /v1/me shows); null when nothing accrues. Its id is the one the next
 * stored entry will get, so ids still fall down the page; it is computed anew by every read.
 */
function pendingEntry(sql: Sql, nowMs: number): LedgerEntry | null {
  const accruing = accruingInstances(sql);
  if (accruing.length === 0) return null;
  const balance = balanceAt(sql, nowMs);
  const since = Math.min(...accruing.map((row) => row.billed_until_ms!));
  const what = accruing.length === 1 ? `${accruing[0]!.gpu_count} × ${accruing[0]!.gpu_model}` : `${accruing.length} instances`;
  return {
    id: nextSeq(sql),
    created_at: new Date(nowMs).toISOString(),
    kind: "charge",
    amount_micros: balance - balanceOf(sql),
    balance_after_micros: balance,
    instance_id: accruing.length === 1 ? accruing[0]!.id : null,
    note: `since ${new Date(since).toISOString().slice(11, 16)} UTC, not yet settled: ${what}`,
    pending: true,
  };
}

function nextSeq(sql: Sql): number {
  const [row] = sql<{ seq: number }>`SELECT seq FROM sqlite_sequence WHERE name = 'ledger'`;
  return (row?.seq ?? 0) + 1;
}

function balanceRows(sql: Sql): number {
  return sql<{ n: number }>`SELECT COUNT(*) AS n FROM ledger`[0]!.n;
}
