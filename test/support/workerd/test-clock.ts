// Moves the Durable Objects' billing clock in workerd tests (they share the test's isolate, so they
// read the same `clock`): frozen for exact sums, advanced without waiting.
import { afterEach, beforeEach, vi } from "vitest";
import { clock } from "../../../core/clock.ts";

let offsetMs = 0;
let frozenAt: number | null = null;

function install(): void {
  if (vi.isMockFunction(clock.now)) return;
  const realNow = clock.now.bind(clock);
  vi.spyOn(clock, "now").mockImplementation(() => frozenAt ?? realNow() + offsetMs);
}

/** Moves the clock `ms` forward. */
export function advanceClock(ms: number): void {
  install();
  if (frozenAt !== null) frozenAt += ms;
  else offsetMs += ms;
}

/** Stops the clock at its current value until `resumeClock`. */
export function freezeClock(): number {
  install();
  frozenAt = clock.now();
  return frozenAt;
}

/** Lets the clock run again from where it stood. */
export function resumeClock(): void {
  if (frozenAt !== null) offsetMs = frozenAt - Date.now();
  frozenAt = null;
}

/** Runs `body` on a frozen clock and lets the clock run again after, however `body` ends. */
export async function withFrozenClock<T>(body: () => Promise<T>): Promise<T> {
  freezeClock();
  try {
    return await body();
  } finally {
    resumeClock();
  }
}

/** Freezes the clock before each test of the file (or of the describe block it is called in) and lets it run after. */
export function freezeClockInEachTest(): void {
  beforeEach(() => {
    freezeClock();
  });
  afterEach(() => {
    resumeClock();
  });
}
