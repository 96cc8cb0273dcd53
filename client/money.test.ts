import { describe, expect, it } from "vitest";
import { dollarsToMicros } from "./money.ts";

describe("dollarsToMicros", () => {
  it("takes whole dollars and cents, exactly", () => {
    expect(["25", "25.5", "25.50", " 0.01 ", "1000"].map(dollarsToMicros)).toEqual([25_000_000, 25_500_000, 25_500_000, 10_000, 1_000_000_000]);
  });

  it("refuses a third decimal, a sign, an exponent or words", () => {
    expect(["25.001", "-5", "1e3", "ten", "", "25."].map(dollarsToMicros)).toEqual([null, null, null, null, null, null]);
  });
});
