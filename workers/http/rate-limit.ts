// Per client IP request limits, two of them for each budget: the API's (RATE_LIMIT_RPS) and the
// instance web apps' origins' (APPS_RATE_LIMIT_RPS). This isolate's token bucket: a client sustaining
// the rate is never limited, a burst beyond two seconds' worth gets 429 with the exact Retry-After.
// Then, where deployed, the Workers Rate Limiting binding (RATE_LIMITER, APPS_RATE_LIMITER): one
// counter per IP per Cloudflare location, for a client whose requests are spread over many isolates.
// It only answers yes or no, so its refusal says to retry after its whole window. `wrangler dev` has
// no such binding: its one isolate's bucket already sees every request.
import { ApiError } from "../../core/errors.ts";
import { TokenBuckets } from "../../core/token-bucket.ts";
import { callerIp } from "./caller-ip.ts";

/** The window of every rate limiting binding (`simple.period` in wrangler.toml; the deploy check holds them equal). */
export const LOCATION_PERIOD_S = 10;

/** What this module needs of the Rate Limiting binding. */
export interface LocationLimiter {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

export class RateLimiter {
  readonly ratePerSecond: number;
  private readonly buckets: TokenBuckets;

  constructor(ratePerSecond: number) {
    this.ratePerSecond = ratePerSecond;
    this.buckets = new TokenBuckets({ capacity: Math.max(1, ratePerSecond * 2), perPeriod: ratePerSecond, periodMs: 1000 });
  }

  /** Takes a token for `ip` or throws 429 rate_limited. */
  take(ip: string, nowMs: number): void {
    const retryAfter = this.buckets.take(ip, nowMs);
    if (retryAfter !== null) {
      throw new ApiError("rate_limited", `more than ${this.ratePerSecond} requests per second from this address`, {
        "retry-after": String(retryAfter),
      });
    }
  }
}

/** A per-IP budget: the API's (RATE_LIMIT_RPS), the instance web apps' (APPS_RATE_LIMIT_RPS) or the operator API's (ADMIN_RATE_LIMIT_RPS). */
export type Budget = "api" | "apps" | "admin";

/**
 * When the variable is unset or not a positive number. A web app's page load makes dozens of
 * requests; the operator API has a budget of its own, so guesses at its token cannot ride the API's.
 */
export const DEFAULT_RPS: Record<Budget, number> = { api: 20, apps: 200, admin: 20 };

const limiters = new Map<Budget, RateLimiter>();

/** The isolate's limiter of `budget`, rebuilt if the configured rate changes. */
export function rateLimiterFor(rateVar: string | undefined, budget: Budget = "api"): RateLimiter {
  const rate = Number(rateVar) > 0 ? Number(rateVar) : DEFAULT_RPS[budget];
  let limiter = limiters.get(budget);
  if (!limiter || limiter.ratePerSecond !== rate) {
    limiter = new RateLimiter(rate);
    limiters.set(budget, limiter);
  }
  return limiter;
}

/**
 * Admits one API request from `ip` or throws 429 rate_limited: the isolate's bucket first (no I/O,
 * and a burst it refuses never reaches the shared counter), then the per-location limiter.
 */
export function admitRequest(ip: string, limits: { RATE_LIMIT_RPS?: string; RATE_LIMITER?: LocationLimiter }, nowMs: number): Promise<void> {
  return admit(ip, rateLimiterFor(limits.RATE_LIMIT_RPS, "api"), limits.RATE_LIMITER, nowMs);
}

/** The same for a request to an instance web app's origin, on the apps' own budget. */
export function admitAppRequest(ip: string, limits: { APPS_RATE_LIMIT_RPS?: string; APPS_RATE_LIMITER?: LocationLimiter }, nowMs: number): Promise<void> {
  return admit(ip, rateLimiterFor(limits.APPS_RATE_LIMIT_RPS, "apps"), limits.APPS_RATE_LIMITER, nowMs);
}

/** The same for the operator API (/admin), on its own budget and with no shared counter. */
export function admitAdminRequest(ip: string, limits: { ADMIN_RATE_LIMIT_RPS?: string }, nowMs: number): Promise<void> {
  return admit(ip, rateLimiterFor(limits.ADMIN_RATE_LIMIT_RPS, "admin"), undefined, nowMs);
}

async function admit(ip: string, bucket: RateLimiter, location: LocationLimiter | undefined, nowMs: number): Promise<void> {
  bucket.take(ip, nowMs);
  if (location && !(await location.limit({ key: ip })).success) {
    throw new ApiError("rate_limited", `too many requests from this address in ${LOCATION_PERIOD_S} seconds`, {
      "retry-after": String(LOCATION_PERIOD_S),
    });
  }
}

export function clientIp(request: Request): string {
  return callerIp(request) ?? "local";
}
