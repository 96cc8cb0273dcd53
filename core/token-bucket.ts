// Token buckets, one per key (a client IP, an email): each holds at most `capacity` tokens, starts
// full and refills continuously at `perPeriod` tokens every `periodMs`; taking one when fewer than one
// is left is refused with the whole seconds until one will be there. The API's request limits
// (workers/http/rate-limit.ts) and the sign-in attempt budgets (attempt-budget.ts) are both this.
const MAX_TRACKED_KEYS = 10_000;

export interface BucketRate {
  capacity: number;
  perPeriod: number;
  periodMs: number;
}

export class TokenBuckets {
  readonly rate: BucketRate;
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(rate: BucketRate) {
    this.rate = rate;
  }

  /** Takes a token for `key`: null when there was one, else the seconds (at least 1) until there is. */
  take(key: string, nowMs: number): number | null {
    const { capacity, perPeriod, periodMs } = this.rate;
    const bucket = this.buckets.get(key) ?? { tokens: capacity, at: nowMs };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((nowMs - bucket.at) * perPeriod) / periodMs);
    bucket.at = nowMs;
    // Re-inserted so the least recently seen key is the first to go when the map is full.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > MAX_TRACKED_KEYS) this.buckets.delete(this.buckets.keys().next().value!);
    if (bucket.tokens < 1) return Math.max(1, Math.ceil(((1 - bucket.tokens) * periodMs) / perPeriod / 1000));
    bucket.tokens -= 1;
    return null;
  }
}
