import { describe, expect, it } from "vitest";
import { budgetReached } from "./budget.ts";

const at = (spent: number, budget: number | null) => budgetReached({ month_spend_micros: spent, account: { monthly_budget_micros: budget } });

describe("budgetReached", () => {
  it("the highest threshold this month's spend has reached, to the micro-dollar", () => {
    expect([at(499_999, 1_000_000), at(500_000, 1_000_000), at(799_999, 1_000_000), at(800_000, 1_000_000), at(999_999, 1_000_000), at(1_000_000, 1_000_000), at(5_000_000, 1_000_000)])
      .toEqual([null, 50, 50, 80, 80, 100, 100]);
  });

  it("none without a budget; a budget of 0 is reached from the start", () => {
    expect([at(10, null), at(0, 0)]).toEqual([null, 100]);
  });
});
