// Backoff delays: exponential ceilings capped at 5 s, full jitter, reset.
import { describe, expect, it } from "vitest";
import { Backoff } from "./backoff.ts";

describe("backoff", () => {
  it("doubles the ceiling from the base up to the cap, jittering over the whole range, and resets", () => {
    const atCeiling = new Backoff({ baseMs: 250, capMs: 5000, random: () => 0.999999 });
    const ceilings = Array.from({ length: 8 }, () => atCeiling.nextDelayMs() + 1);
    expect(ceilings).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
    atCeiling.reset();
    expect(atCeiling.nextDelayMs()).toBe(249);
    const atFloor = new Backoff({ baseMs: 250, capMs: 5000, random: () => 0 });
    expect([atFloor.nextDelayMs(), atFloor.nextDelayMs()]).toEqual([0, 0]);
  });
});
