import { describe, expect, it } from "vitest";
import { formatDollars, formatPerHour, formatSignedDollars } from "./money.ts";

describe("formatDollars", () => {
  it.each([
    [0, "$0.00"],
    [100_000_000, "$100.00"],
    [690_000, "$0.69"],
    [2_990_000, "$2.99"],
    [1_234_500_000, "$1,234.50"],
    [1_000_000_000_000, "$1,000,000.00"],
    [4_999, "$0.00"],
    [5_000, "$0.01"],
    [14_999, "$0.01"],
    [15_000, "$0.02"],
    [-1_234_567, "-$1.23"],
    [-5_000, "-$0.01"],
    [-4_999, "$0.00"],
    [Number.MAX_SAFE_INTEGER, "$9,007,199,254.74"],
  ])("%i micro-dollars is %s", (micros, text) => {
    expect(formatDollars(micros)).toBe(text);
  });

  it("refuses a fraction of a micro-dollar rather than showing a wrong amount", () => {
    expect(() => formatDollars(0.5)).toThrow(RangeError);
    expect(() => formatDollars(Number.NaN)).toThrow(RangeError);
  });

  it("prices per hour and signs ledger amounts", () => {
    expect(formatPerHour(1_380_000)).toBe("$1.38/h");
    expect(formatSignedDollars(10_000_000)).toBe("+$10.00");
    expect(formatSignedDollars(-690_000)).toBe("-$0.69");
    expect(formatSignedDollars(0)).toBe("$0.00");
  });
});
