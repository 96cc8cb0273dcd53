// Exact integer accrual of storage: stored bytes at a price per GB-month over milliseconds. A GB is
// 10^9 bytes and a month 730 hours (8,760 hours a year over 12), so an hour costs the same in every
// calendar month and 730 hours of a volume cost exactly its GB-month price times its GB. The
// remainder (in micro-dollar byte-milliseconds per GB-month) is carried to the next period, as an
// instance's is (accrual.ts), so the sum never depends on how the time was sliced; it can pass 2^53,
// so it is a BigInt, stored as decimal text.
import { MS_PER_HOUR } from "../money/accrual.ts";

export const HOURS_PER_MONTH = 730;
const BYTES_PER_GB = 1_000_000_000n;
/** What one micro-dollar is in the accrual's units: a GB-month's bytes times its milliseconds. */
const PER_MICRO = BYTES_PER_GB * BigInt(HOURS_PER_MONTH * MS_PER_HOUR);

export interface StorageAccrual {
  chargeMicros: number;
  carry: bigint;
}

export function accrueStorage(storedBytes: number, priceGbMonthMicros: number, elapsedMs: number, carry: bigint): StorageAccrual {
  if (elapsedMs <= 0) return { chargeMicros: 0, carry };
  const total = BigInt(storedBytes) * BigInt(priceGbMonthMicros) * BigInt(elapsedMs) + carry;
  return { chargeMicros: Number(total / PER_MICRO), carry: total % PER_MICRO };
}

/** What `storedBytes` cost for a whole month (730 hours) from a carry of zero. */
export function storageMonthMicros(storedBytes: number, priceGbMonthMicros: number): number {
  return Number((BigInt(storedBytes) * BigInt(priceGbMonthMicros)) / BYTES_PER_GB);
}

/**
 * Milliseconds until charges at `rate` (the sum of stored bytes × price of the volumes) with `carry`
 * (the sum of their carries) reach `balanceMicros`, at least 1. The volumes' charges round down one by
 * one, so they reach it at this time or a little after: a settlement then finds the balance still
 * above zero at worst, and the next is asked for again.
 */
export function msUntilStorageExhausted(balanceMicros: number, rate: bigint, carry: bigint): number {
  if (rate <= 0n) return Number.POSITIVE_INFINITY;
  const needed = BigInt(Math.max(0, balanceMicros)) * PER_MICRO - carry;
  if (needed <= 0n) return 1;
  return Math.max(1, Number((needed + rate - 1n) / rate));
}
