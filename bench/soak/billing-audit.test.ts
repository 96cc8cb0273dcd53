// Billing audited from an instance's events and charges: billable time, what it owes, charges that
// end while its host was away.
import { describe, expect, it } from "vitest";
import { auditInstance, type ChargeRow, type TimedMessage } from "./billing-audit.ts";

const PRICE = 3_600_000; // one micro-dollar per millisecond: owed = billable ms
const T0 = Date.UTC(2026, 10, 23);
const at = (ms: number) => new Date(T0 + ms).toISOString();
/** Events oldest first here; the API (and auditInstance) list them newest first. */
const log = (...events: [number, string][]): TimedMessage[] => events.map(([ms, message]) => ({ message, created_at: at(ms) })).reverse();
const charge = (ms: number, micros: number): ChargeRow => ({ created_at: at(ms), amount_micros: -micros });

describe("billing audit", () => {
  it("owes the time running on an online host: not the time away, not the time stopped", () => {
    const events = log(
      [0, "Created on machine 1; waiting for the host to start the container"],
      [100, "Container started; instance is running"],
      [1_100, "Host went offline; billing paused until it returns"],
      [3_100, "Host is back online"],
      [4_100, "Stop requested; GPUs released and billing stopped"],
      [5_000, "Start requested; waiting for the host to start the container"],
      [5_500, "Container started; instance is running"],
      [6_000, "Destroyed; the host removes the container and its data"],
    );
    const charges = [charge(1_100, 1_000), charge(4_100, 1_000), charge(6_000, 500)];
    expect(auditInstance(PRICE, events, charges, T0 + 10_000)).toEqual({ billableMs: 2_500, expectedMicros: 2_500, chargedMicros: 2_500, chargesWhileAway: 0 });
  });

  it("finds a charge that ends while the host is away, and a total over what it owes", () => {
    const events = log([0, "Container started; instance is running"], [1_000, "Host went offline"], [3_000, "Host is back online"], [4_000, "Destroyed"]);
    expect(auditInstance(PRICE, events, [charge(1_000, 1_000), charge(2_000, 1_000), charge(4_000, 1_000)], T0 + 9_000)).toEqual({
      billableMs: 2_000, expectedMicros: 2_000, chargedMicros: 3_000, chargesWhileAway: 1,
    });
  });

  it("a run still going is owed up to the end; a host still away ends its away time there too", () => {
    expect(auditInstance(PRICE, log([0, "Container started; instance is running"]), [], T0 + 750).billableMs).toBe(750);
    const gone = log([0, "Container started; instance is running"], [100, "Host went offline"]);
    expect(auditInstance(PRICE, gone, [charge(100, 100), charge(400, 300)], T0 + 500)).toMatchObject({ billableMs: 100, chargesWhileAway: 1 });
  });

  it("an error or a stop for lack of funds ends a run; the price accrues in whole micro-dollars, rounded down", () => {
    const events = log([0, "Container started; instance is running"], [7, "Error: The container stopped unexpectedly"], [10, "Start requested"],
      [20, "Container started; instance is running"], [27, "Stopped: the account balance is used up"]);
    expect(auditInstance(690_000, events, [], T0 + 100)).toMatchObject({ billableMs: 14, expectedMicros: 2 });
  });
});
