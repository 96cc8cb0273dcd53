import { describe, expect, it } from "vitest";
import { jitter, MB, mean, median, megabytesPerSecond, percentile, perSecond, roundSignificant, summarize } from "./stats.ts";

describe("percentile (nearest rank)", () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted on purpose

  it("p50 and p99 of 1..100 are 50 and 99", () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 99)).toBe(99);
  });

  it("p0 is the minimum and p100 the maximum", () => {
    expect(percentile(hundred, 0)).toBe(1);
    expect(percentile(hundred, 100)).toBe(100);
  });

  it("a single sample is every percentile; no samples is NaN", () => {
    expect(percentile([7], 1)).toBe(7);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it("does not reorder the caller's array", () => {
    const samples = [3, 1, 2];
    percentile(samples, 50);
    expect(samples).toEqual([3, 1, 2]);
  });

  it("median of an even count is the lower middle value", () => {
    expect(median([4, 1, 3, 2])).toBe(2);
  });
});

describe("summaries and rates", () => {
  it("summarize gives count, p50, p99, mean and max", () => {
    expect(summarize([1, 2, 3, 4, 10])).toEqual({ count: 5, p50: 3, p99: 10, mean: 4, max: 10 });
  });

  it("mean of nothing is NaN", () => {
    expect(mean([])).toBeNaN();
  });

  it("perSecond turns a count over milliseconds into a rate", () => {
    expect(perSecond(500, 250)).toBe(2000);
    expect(perSecond(1, 0)).toBeNaN();
  });

  it("megabytesPerSecond uses MB = 2^20 bytes", () => {
    expect(megabytesPerSecond(64 * MB, 500)).toBe(128);
  });

  it("jitter is each gap's distance from the expected interval", () => {
    expect(jitter([0, 20, 45, 60], 20)).toEqual([0, 5, 5]);
    expect(jitter([5], 20)).toEqual([]);
  });
});

describe("roundSignificant", () => {
  it("keeps three significant digits at any magnitude", () => {
    expect(roundSignificant(1234.5)).toBe(1230);
    expect(roundSignificant(0.0123456)).toBe(0.0123);
    expect(roundSignificant(61.19)).toBe(61.2);
    expect(roundSignificant(-4.4449)).toBe(-4.44);
  });

  it("leaves zero and non-finite values alone", () => {
    expect(roundSignificant(0)).toBe(0);
    expect(roundSignificant(Number.NaN)).toBeNaN();
  });
});
