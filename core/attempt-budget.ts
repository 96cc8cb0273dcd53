// A budget of attempts per minute for one key (a client IP, an email): a token bucket holding one
// minute's worth, refilled continuously. Sign-in guessing is slowed by it without locking anyone out.
const MINUTE_MS = 60_000;
const MAX_TRACKED_KEYS = 10_000;

export class AttemptBudget {
  readonly perMinute: number;
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(perMinute: number) {
    this.perMinute = perMinute;
  }

  /** Takes one attempt for `key`: null when allowed, else the seconds until the next one is. */
  take(key: string, nowMs: number): number | null {
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, at: nowMs };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + ((nowMs - bucket.at) * this.perMinute) / MINUTE_MS);
    bucket.at = nowMs;
    // Re-inserted so the least recently seen key is the first to go when the map is full.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > MAX_TRACKED_KEYS) this.buckets.delete(this.buckets.keys().next().value!);
    if (bucket.tokens < 1) return Math.max(1, Math.ceil(((1 - bucket.tokens) * MINUTE_MS) / this.perMinute / 1000));
    bucket.tokens -= 1;
    return null;
  }
}

/** AUTH_RATE_LIMIT_PER_MIN as a number: a positive integer, else the default of 10. */
export function authAttemptsPerMinute(value: string | undefined): number {
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : 10;
}
