// A budget of attempts per minute for one key (a client IP, an email): a token bucket holding one
// minute's worth, refilled continuously. Sign-in guessing is slowed by it without locking anyone out.
import { TokenBuckets } from "./token-bucket.ts";

export class AttemptBudget extends TokenBuckets {
  readonly perMinute: number;

  constructor(perMinute: number) {
    super({ capacity: perMinute, perPeriod: perMinute, periodMs: 60_000 });
    this.perMinute = perMinute;
  }
}

/** AUTH_RATE_LIMIT_PER_MIN as a number: a positive integer, else the default of 10. */
export function authAttemptsPerMinute(value: string | undefined): number {
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : 10;
}
