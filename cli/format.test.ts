import { describe, expect, it } from "vitest";
import { dollars } from "./format.ts";

describe("dollars", () => {
  it.each([
    [0, "$0.00"],
    [690_000, "$0.69"],
    [100_000_000, "$100.00"],
    [1_234_567, "$1.234567"],
    [1_190_100, "$1.1901"],
    [5, "$0.000005"],
    [-500_000, "-$0.50"],
  ])("%d micro-dollars is %s, exactly", (micros, text) => {
    expect(dollars(micros)).toBe(text);
  });
});
