// Exact integer accrual of an hourly price over milliseconds. The remainder (in micro-dollar
// milliseconds) is carried to the next period, so one hour costs exactly the hourly price however
// the hour is sliced. BigInt because price × elapsed can pass 2^53.
export const MS_PER_HOUR = 3_600_000;

export interface Accrual {
  chargeMicros: number;
  carry: number;
}

export function accrue(priceHourMicros: number, elapsedMs: number, carry: number): Accrual {
  if (elapsedMs <= 0) return { chargeMicros: 0, carry };
  const total = BigInt(priceHourMicros) * BigInt(elapsedMs) + BigInt(carry);
  const hour = BigInt(MS_PER_HOUR);
  return { chargeMicros: Number(total / hour), carry: Number(total % hour) };
}

/** Milliseconds until `balanceMicros` is used up at `burnMicrosPerHour`, at least 1. */
export function msUntilExhausted(balanceMicros: number, burnMicrosPerHour: number): number {
  if (burnMicrosPerHour <= 0) return Number.POSITIVE_INFINITY;
  if (balanceMicros <= 0) return 1;
  const ms = (BigInt(balanceMicros) * BigInt(MS_PER_HOUR) + BigInt(burnMicrosPerHour) - 1n) / BigInt(burnMicrosPerHour);
  return Math.max(1, Number(ms));
}
