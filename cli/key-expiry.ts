// `gpu keys create --expires`: a lifetime as typed (12h, 30d, 1y) to the key's expiry time. The API
// checks the time itself (in the future, at most 365 days ahead) and names the field when it refuses.
import { InvalidArgumentError } from "@commander-js/extra-typings";

const UNIT_MS = { h: 3_600_000, d: 24 * 3_600_000, y: 365 * 24 * 3_600_000 } as const;

/** A lifetime in milliseconds: a whole number of hours, days or years (a year is 365 days). */
export function lifetime(value: string): number {
  const match = /^(\d+)([hdy])$/.exec(value.trim());
  if (!match || Number(match[1]) === 0) throw new InvalidArgumentError("must be a lifetime such as 12h, 30d or 1y");
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** The expiry `lifetimeMs` after `nowMs`, as the API takes it. */
export const expiryAfter = (lifetimeMs: number, nowMs: number): string => new Date(nowMs + lifetimeMs).toISOString();
