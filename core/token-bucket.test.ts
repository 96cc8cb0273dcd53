// The one token bucket behind the API's request limits and the sign-in attempt budgets.
import { describe, expect, it } from "vitest";
import { TokenBuckets } from "./token-bucket.ts";

describe("TokenBuckets", () => {
  it("starts full, refuses the key that ran out with the whole seconds until a token is back, and keeps keys apart", () => {
    const buckets = new TokenBuckets({ capacity: 3, perPeriod: 1, periodMs: 2_000 });
    for (let i = 0; i < 3; i++) expect(buckets.take("a", 0)).toBeNull();
    expect(buckets.take("a", 0)).toBe(2);
    expect(buckets.take("a", 1_000)).toBe(1);
    expect(buckets.take("b", 1_000)).toBeNull();
    expect(buckets.take("a", 2_000)).toBeNull();
  });

  it("refills continuously up to its capacity, never beyond", () => {
    const buckets = new TokenBuckets({ capacity: 2, perPeriod: 10, periodMs: 1_000 });
    buckets.take("a", 0);
    buckets.take("a", 0);
    expect(buckets.take("a", 100)).toBeNull();
    expect(buckets.take("a", 3_600_000)).toBeNull();
    expect(buckets.take("a", 3_600_000)).toBeNull();
    expect(buckets.take("a", 3_600_000)).toBe(1);
  });

  it("forgets the least recently seen key once it tracks 10,000, which then starts full again", () => {
    const buckets = new TokenBuckets({ capacity: 1, perPeriod: 1, periodMs: 60_000 });
    expect(buckets.take("first", 0)).toBeNull();
    expect(buckets.take("kept", 0)).toBeNull();
    for (let i = 0; i < 9_998; i++) buckets.take(`other-${i}`, 0);
    expect(buckets.take("kept", 0)).toBe(60);
    buckets.take("one-more", 0);
    expect(buckets.take("first", 0)).toBeNull();
    expect(buckets.take("kept", 0)).toBe(60);
  });
});
