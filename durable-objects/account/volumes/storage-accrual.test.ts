import { describe, expect, it } from "vitest";
import { MS_PER_HOUR } from "../money/accrual.ts";
import { accrueStorage, HOURS_PER_MONTH, msUntilStorageExhausted, storageMonthMicros } from "./storage-accrual.ts";

const PRICE = 70_000;

/** Charges `bytes` for `totalMs` in slices of `sliceMs`, carrying the remainder; the sum and the carry left. */
function sliced(bytes: number, totalMs: number, sliceMs: number): { total: number; carry: bigint } {
  let total = 0;
  let carry = 0n;
  for (let elapsed = 0; elapsed < totalMs; elapsed += sliceMs) {
    const accrual = accrueStorage(bytes, PRICE, Math.min(sliceMs, totalMs - elapsed), carry);
    total += accrual.chargeMicros;
    carry = accrual.carry;
  }
  return { total, carry };
}

describe("storage accrual", () => {
  it("charges a month of 730 hours exactly the GB-month price times the GB, however the month is sliced", () => {
    const month = HOURS_PER_MONTH * MS_PER_HOUR;
    for (const slice of [month, MS_PER_HOUR, 60_000, 997_001]) {
      expect(sliced(1_000_000_000, month, slice)).toEqual({ total: PRICE, carry: 0n });
      expect(sliced(2_500_000_000, month, slice)).toEqual({ total: 175_000, carry: 0n });
    }
    expect(storageMonthMicros(2_500_000_000, PRICE)).toBe(175_000);
    expect(storageMonthMicros(1, PRICE)).toBe(0);
  });

  it("carries what a slice does not make a whole micro-dollar: an hour of 1 GB in seconds costs what it costs in one piece", () => {
    // 1 GB for a second is 0.0266 micro-dollars: without the carry, 3,600 seconds would cost nothing.
    expect(accrueStorage(1_000_000_000, PRICE, 1_000, 0n).chargeMicros).toBe(0);
    const whole = accrueStorage(1_000_000_000, PRICE, MS_PER_HOUR, 0n);
    expect(whole.chargeMicros).toBe(95); // 70,000 / 730 = 95.89
    expect(sliced(1_000_000_000, MS_PER_HOUR, 1_000)).toEqual({ total: whole.chargeMicros, carry: whole.carry });
  });

  it("stays exact past 2^53: 10,000 GB at $1,000 a GB-month for a year", () => {
    const bytes = 10_000 * 1_000_000_000;
    const year = 8_760 * MS_PER_HOUR;
    const { chargeMicros, carry } = accrueStorage(bytes, 1_000_000_000, year, 0n);
    expect(chargeMicros).toBe(10_000 * 1_000_000_000 * 12);
    expect(carry).toBe(0n);
  });

  it("says when a balance runs out at the volumes' rate, counting their carry", () => {
    const rate = 1_000_000_000n * BigInt(PRICE);
    const hourOfOneGb = accrueStorage(1_000_000_000, PRICE, MS_PER_HOUR, 0n).chargeMicros;
    const ms = msUntilStorageExhausted(hourOfOneGb, rate, 0n);
    expect(accrueStorage(1_000_000_000, PRICE, ms, 0n).chargeMicros).toBe(hourOfOneGb);
    expect(accrueStorage(1_000_000_000, PRICE, ms - 1, 0n).chargeMicros).toBe(hourOfOneGb - 1);
    expect(msUntilStorageExhausted(0, rate, 0n)).toBe(1);
    expect(msUntilStorageExhausted(100, 0n, 0n)).toBe(Number.POSITIVE_INFINITY);
  });
});
