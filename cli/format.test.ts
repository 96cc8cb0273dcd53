import { describe, expect, it } from "vitest";
import { byteSize, dollars } from "./format.ts";

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

describe("byteSize", () => {
  it.each([
    [0, "0 B"],
    [999, "999 B"],
    [1000, "1.0 kB"],
    [999_949, "999.9 kB"],
    [999_960, "1.0 MB"],
    [8 * 1024 * 1024, "8.4 MB"],
    [1_234_000_000, "1.2 GB"],
    [10_000 * 1e9, "10.0 TB"],
  ])("%d bytes is %s", (bytes, text) => {
    expect(byteSize(bytes)).toBe(text);
  });
});
