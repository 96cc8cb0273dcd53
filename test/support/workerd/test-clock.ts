// Moves the Durable Objects' billing clock in workerd tests (they share the test's isolate, so they
// read the same `clock`): frozen for exact sums, advanced without waiting.
import { vi } from "vitest";
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
