// Per client IP token bucket. A client sustaining RATE_LIMIT_RPS is never
// limited; a burst beyond a bucket of two seconds' worth gets 429 with Retry-After. The bucket lives
// in the Worker isolate, which holds it for the IPs it serves; a zone-wide WAF rate rule backs it in
// production where one IP may be spread over many isolates.
import { ApiError } from "../../core/errors.ts";

const MAX_TRACKED_IPS = 10_000;

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  readonly ratePerSecond: number;
  private readonly capacity: number;

  constructor(ratePerSecond: number) {
    this.ratePerSecond = ratePerSecond;
    this.capacity = Math.max(1, ratePerSecond * 2);
  }

  /** Takes a token for `ip` or throws 429 rate_limited. */
  take(ip: string, nowMs: number): void {
    const bucket = this.buckets.get(ip) ?? { tokens: this.capacity, at: nowMs };
    bucket.tokens = Math.min(this.capacity, bucket.tokens + ((nowMs - bucket.at) / 1000) * this.ratePerSecond);
    bucket.at = nowMs;
    this.buckets.delete(ip);
    this.buckets.set(ip, bucket);
    if (this.buckets.size > MAX_TRACKED_IPS) this.buckets.delete(this.buckets.keys().next().value!);
    if (bucket.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond));
      throw new ApiError("rate_limited", `more than ${this.ratePerSecond} requests per second from this address`, {
        "retry-after": String(retryAfter),
      });
    }
    bucket.tokens -= 1;
  }
}

let limiter: RateLimiter | null = null;

/** The isolate's limiter, rebuilt if the configured rate changes. */
export function rateLimiterFor(rateVar: string | undefined): RateLimiter {
  const rate = Number(rateVar ?? 20) > 0 ? Number(rateVar ?? 20) : 20;
  if (!limiter || limiter.ratePerSecond !== rate) limiter = new RateLimiter(rate);
  return limiter;
}

export function clientIp(request: Request): string {
  return request.headers.get("cf-connecting-ip") ?? request.headers.get("x-real-ip") ?? "local";
}
