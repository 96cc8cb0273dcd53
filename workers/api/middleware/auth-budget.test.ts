import { describe, expect, it } from "vitest";
import { AttemptBudget, authAttemptsPerMinute } from "../../../core/attempt-budget.ts";

describe("AttemptBudget", () => {
  it("allows the budget within a minute, then says how many seconds until the next attempt", () => {
    const budget = new AttemptBudget(10);
    for (let i = 0; i < 10; i++) expect(budget.take("1.2.3.4", 1_000)).toBeNull();
    expect(budget.take("1.2.3.4", 1_000)).toBe(6);
    expect(budget.take("5.6.7.8", 1_000)).toBeNull();
  });

  it("refills at the budget's rate: one attempt every 6 s for 10 a minute, never more than 10 saved", () => {
    const budget = new AttemptBudget(10);
    for (let i = 0; i < 10; i++) budget.take("ip", 0);
    expect(budget.take("ip", 5_999)).toBe(1);
    expect(budget.take("ip", 6_000)).toBeNull();
    expect(budget.take("ip", 6_000)).toBe(6);
    for (let i = 0; i < 10; i++) expect(budget.take("ip", 3_600_000)).toBeNull();
    expect(budget.take("ip", 3_600_000)).not.toBeNull();
  });

  it("AUTH_RATE_LIMIT_PER_MIN is a positive integer, else 10", () => {
    expect(authAttemptsPerMinute("25")).toBe(25);
    for (const value of [undefined, "", "0", "-3", "1.5", "ten"]) expect(authAttemptsPerMinute(value)).toBe(10);
  });
});
