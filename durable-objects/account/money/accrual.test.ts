import { describe, expect, it } from "vitest";
import { accrue, msUntilExhausted, MS_PER_HOUR } from "./accrual.ts";

describe("accrue", () => {
  it("one hour costs exactly the hourly price however it is sliced", () => {
    for (const slices of [1, 7, 60, 3600, 3_600_000 / 997]) {
      const price = 2_990_001;
      let carry = 0;
      let total = 0;
      let elapsed = 0;
      const step = Math.floor(MS_PER_HOUR / slices);
      while (elapsed < MS_PER_HOUR) {
        const ms = Math.min(step, MS_PER_HOUR - elapsed);
        const result = accrue(price, ms, carry);
        total += result.chargeMicros;
        carry = result.carry;
        elapsed += ms;
      }
      expect(total).toBe(price);
      expect(carry).toBe(0);
    }
  });

  it("stays exact where price x elapsed passes 2^53", () => {
    const price = 8 * 40_000_000;
    const thirtyDays = 30 * 24 * MS_PER_HOUR;
    expect(accrue(price, thirtyDays, 0)).toEqual({ chargeMicros: price * 720, carry: 0 });
  });

  it("nothing accrues for no time", () => {
    expect(accrue(1_000_000, 0, 5)).toEqual({ chargeMicros: 0, carry: 5 });
  });
});

describe("msUntilExhausted", () => {
  it("is the time the balance lasts, rounded up, and 1 when nothing is left", () => {
    expect(msUntilExhausted(1_000_000, 1_000_000)).toBe(MS_PER_HOUR);
    expect(msUntilExhausted(1, 3_600_001)).toBe(1);
    expect(msUntilExhausted(0, 5)).toBe(1);
    expect(msUntilExhausted(5, 0)).toBe(Number.POSITIVE_INFINITY);
  });
});
