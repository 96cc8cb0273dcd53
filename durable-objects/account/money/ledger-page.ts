// The ledger as a customer reads it: newest first, in pages. A page continues strictly below the
// last row of the one before (keyset pagination on the row's sequence number), so rows written
// between two reads never make a page repeat or skip a row. Reading writes nothing: what has
// accrued since the last settlement leads the first page as computed `pending` entries, one for the
// instances' running time and one for the volumes' storage.
import type { Env } from "../../../core/env.ts";
import type { Sql } from "../../sql.ts";
import { accruingInstances, balanceAt } from "./billing.ts";
import { balanceOf, type LedgerKind } from "./ledger.ts";
import { pendingStorage } from "../volumes/storage-charges.ts";

export interface LedgerEntry {
  id: number;
  created_at: string;
  kind: LedgerKind;
  amount_micros: number;
  balance_after_micros: number;
  instance_id: string | null;
  volume_id: string | null;
  note: string;
  pending: boolean;
}

export interface LedgerPageOf {
  items: LedgerEntry[];
  next_cursor: string | null;
}

/**
 * Up to `limit` entries older than `before` (an entry id; null for the newest). The pending entries
 * lead the newest page; a page cut within them continues, below the last one shown, with the rest.
 */
export function ledgerPage(sql: Sql, env: Env, nowMs: number, limit: number, before: number | null): LedgerPageOf {
  const pending = pendingEntries(sql, env, nowMs).filter((entry) => before === null || entry.id < before);
  if (pending.length === 0) return storedPage(sql, limit, before);
  if (limit <= pending.length) {
    const shown = pending.slice(0, limit);
    return { items: shown, next_cursor: pending.length > limit || balanceRows(sql) > 0 ? String(shown.at(-1)!.id) : null };
  }
  const stored = storedPage(sql, limit - pending.length, null);
  return { items: [...pending, ...stored.items], next_cursor: stored.next_cursor };
}

function storedPage(sql: Sql, limit: number, before: number | null): LedgerPageOf {
  const rows = sql<Omit<LedgerEntry, "pending">>`
    SELECT seq AS id, created_at, kind, amount_micros, balance_after_micros, instance_id, volume_id, note FROM ledger
    WHERE seq < ${before ?? Number.MAX_SAFE_INTEGER} ORDER BY seq DESC LIMIT ${limit + 1}`;
  const items = rows.slice(0, limit).map((row) => ({ ...row, pending: false }));
  return { items, next_cursor: rows.length > limit ? String(items.at(-1)!.id) : null };
}

/**
 * What has accrued since the last settlement, as settling now would charge it: the running
 * instances' time (the entry on top, whose balance is the one GET /v1/me shows) and the volumes'
 * storage; none when nothing accrues. Their ids are the ones the next stored entries will get, so
 * ids still fall down the page; they are computed anew by every read.
 */
function pendingEntries(sql: Sql, env: Env, nowMs: number): LedgerEntry[] {
  const entries: LedgerEntry[] = [];
  const pending = (fields: Pick<LedgerEntry, "kind" | "amount_micros" | "balance_after_micros" | "instance_id" | "volume_id">, sinceMs: number, what: string) =>
    entries.unshift({
      id: nextSeq(sql) + entries.length, created_at: new Date(nowMs).toISOString(), ...fields,
      note: `since ${new Date(sinceMs).toISOString().slice(11, 16)} UTC, not yet settled: ${what}`, pending: true,
    });
  let balance = balanceOf(sql);
  const storage = pendingStorage(sql, env, nowMs);
  if (storage !== null) {
    balance -= storage.micros;
    const one = storage.volumes.length === 1 ? storage.volumes[0]! : null;
    pending({ kind: "storage", amount_micros: -storage.micros, balance_after_micros: balance, instance_id: null, volume_id: one?.id ?? null },
      storage.sinceMs, one ? `volume ${one.name}` : `${storage.volumes.length} volumes`);
  }
  const accruing = accruingInstances(sql);
  if (accruing.length > 0) {
    const amount = balanceAt(sql, nowMs) - balanceOf(sql);
    const one = accruing.length === 1 ? accruing[0]! : null;
    pending({ kind: "charge", amount_micros: amount, balance_after_micros: balance + amount, instance_id: one?.id ?? null, volume_id: null },
      Math.min(...accruing.map((row) => row.billed_until_ms!)), one ? `${one.gpu_count} × ${one.gpu_model}` : `${accruing.length} instances`);
  }
  return entries;
}

function nextSeq(sql: Sql): number {
  const [row] = sql<{ seq: number }>`SELECT seq FROM sqlite_sequence WHERE name = 'ledger'`;
  return (row?.seq ?? 0) + 1;
}

function balanceRows(sql: Sql): number {
  return sql<{ n: number }>`SELECT COUNT(*) AS n FROM ledger`[0]!.n;
}
