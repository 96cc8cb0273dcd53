// A volume's stored bytes as the ledger shows them: kind `storage`, one row per volume per clock hour
// (UTC), grown by each settlement in the hour as an instance's charge row is (charge-rows.ts). A
// volume accrues from its creation to its deletion at its `stored_bytes`, at VOLUME_PRICE_GB_MONTH_MICROS
// (storage-accrual.ts); it is settled up to the moment before its stored bytes change (commits.ts,
// snapshots.ts) or it is deleted (volume-store.ts), so each size is charged for exactly its time.
// An hour that charges nothing (an empty volume, or a few MB) writes no row; the row of an hour opens
// at its first micro-dollar and covers the hour from its start (or the volume's creation).
import type { Env } from "../../../core/env.ts";
import { volumePriceGbMonthMicros } from "../../../core/volume-prices.ts";
import { addColumnIfMissing } from "../../add-column.ts";
import type { Sql } from "../../sql.ts";
import { hourOf, hourSpans } from "../money/charge-rows.ts";
import { MS_PER_HOUR } from "../money/accrual.ts";
import { growCharge, openStorageCharge } from "../money/ledger.ts";
import { accrueStorage, msUntilStorageExhausted } from "./storage-accrual.ts";
import { bytesText } from "./volume-rows.ts";

interface StorageRow {
  id: string;
  name: string;
  stored_bytes: number;
  created_ms: number;
  billed_until_ms: number;
  storage_carry: string;
  open_charge_seq: number | null;
}

/** The ledger's storage rows and what each volume has been charged up to (its `billed_until_ms`, from volumes/schema.ts). */
export function createStorageChargeSchema(sql: Sql): void {
  addColumnIfMissing(sql, "ledger", "volume_id", "TEXT");
  sql`CREATE INDEX IF NOT EXISTS ledger_storage_by_time ON ledger (span_start_ms) WHERE kind = 'storage'`;
  // The accrual's remainder (storage-accrual.ts), a BigInt as decimal text, and the row of the hour still open.
  addColumnIfMissing(sql, "volumes", "storage_carry", "TEXT NOT NULL DEFAULT '0'");
  addColumnIfMissing(sql, "volumes", "open_charge_seq", "INTEGER");
}

/** Inside a transaction: charges volume `volumeId` up to `untilMs` at its stored bytes now (before a change of them). */
export function chargeStorageUntil(sql: Sql, env: Env, volumeId: string, untilMs: number): void {
  const [row] = sql<StorageRow>`SELECT * FROM volumes WHERE id = ${volumeId}`;
  if (row) settleVolume(sql, row, untilMs, volumePriceGbMonthMicros(env));
}

/** Inside a transaction: charges every volume up to `nowMs`. */
export function settleStorage(sql: Sql, env: Env, nowMs: number): void {
  const price = volumePriceGbMonthMicros(env);
  for (const row of sql<StorageRow>`SELECT * FROM volumes WHERE billed_until_ms < ${nowMs}`) settleVolume(sql, row, nowMs, price);
}

/** What settling every volume up to `nowMs` would charge, without writing: since when, and for which volumes. */
export interface PendingStorage {
  micros: number;
  sinceMs: number;
  volumes: { id: string; name: string }[];
}

export function pendingStorage(sql: Sql, env: Env, nowMs: number): PendingStorage | null {
  const price = volumePriceGbMonthMicros(env);
  let micros = 0;
  let sinceMs = nowMs;
  const volumes: { id: string; name: string }[] = [];
  for (const row of sql<StorageRow>`SELECT * FROM volumes WHERE billed_until_ms < ${nowMs} AND stored_bytes > 0 ORDER BY created_ms, id`) {
    const charge = accrueStorage(row.stored_bytes, price, nowMs - row.billed_until_ms, BigInt(row.storage_carry)).chargeMicros;
    if (charge === 0) continue;
    micros += charge;
    sinceMs = Math.min(sinceMs, row.billed_until_ms);
    volumes.push({ id: row.id, name: row.name });
  }
  return micros === 0 ? null : { micros, sinceMs, volumes };
}

/**
 * When storage next needs settling: at the next clock hour while any volume holds bytes (its row
 * closes there), or sooner when `balanceMicros` would run out at the volumes' rate.
 */
export function nextStorageSettlementMs(sql: Sql, env: Env, nowMs: number, balanceMicros: number): number | null {
  const rows = sql<StorageRow>`SELECT * FROM volumes WHERE stored_bytes > 0`;
  if (rows.length === 0) return null;
  const price = BigInt(volumePriceGbMonthMicros(env));
  const rate = rows.reduce((sum, row) => sum + BigInt(row.stored_bytes) * price, 0n);
  const carry = rows.reduce((sum, row) => sum + BigInt(row.storage_carry), 0n);
  const hour = hourOf(nowMs) + MS_PER_HOUR;
  return balanceMicros > 0 ? Math.min(hour, nowMs + msUntilStorageExhausted(balanceMicros, rate, carry)) : hour;
}

function settleVolume(sql: Sql, row: StorageRow, untilMs: number, price: number): void {
  if (untilMs <= row.billed_until_ms) return;
  let carry = BigInt(row.storage_carry);
  let open = row.open_charge_seq;
  for (const [startMs, endMs] of hourSpans(row.billed_until_ms, untilMs)) {
    const accrual = accrueStorage(row.stored_bytes, price, endMs - startMs, carry);
    carry = accrual.carry;
    open = chargeSpan(sql, row, open, startMs, endMs, accrual.chargeMicros);
  }
  sql`UPDATE volumes SET billed_until_ms = ${untilMs}, storage_carry = ${carry.toString()}, open_charge_seq = ${open} WHERE id = ${row.id}`;
}

/** Charges [startMs, endMs) on the hour's open row, or a new one when it charges something; the open row after. */
function chargeSpan(sql: Sql, row: StorageRow, open: number | null, startMs: number, endMs: number, amountMicros: number): number | null {
  const hourStart = hourOf(startMs);
  const openRow = open === null ? undefined : sql<{ span_start_ms: number }>`SELECT span_start_ms FROM ledger WHERE seq = ${open}`[0];
  let seq: number | null = null;
  if (openRow && hourOf(openRow.span_start_ms) === hourStart) {
    seq = open;
    growCharge(sql, open!, -amountMicros, endMs, storageNote(openRow.span_start_ms, endMs, row));
  } else if (amountMicros > 0) {
    const spanStart = Math.max(hourStart, row.created_ms);
    seq = openStorageCharge(sql, -amountMicros, { volumeId: row.id, label: row.name, startMs: spanStart, endMs, note: storageNote(spanStart, endMs, row) });
  }
  return endMs === hourStart + MS_PER_HOUR ? null : seq;
}

/** `12:00–13:00 UTC, volume datasets: 1.2 GB`: the span a storage row covers, and the volume's stored bytes at its end. */
function storageNote(startMs: number, endMs: number, row: StorageRow): string {
  return `${clockTime(startMs)}–${clockTime(endMs)} UTC, volume ${row.name}: ${bytesText(row.stored_bytes)}`;
}

const clockTime = (ms: number) => new Date(ms).toISOString().slice(11, 16);
