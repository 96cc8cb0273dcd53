import { describe, expect, it } from "vitest";
import { GpuApiError } from "../../client/index.ts";
import { plainError } from "./plain-errors.ts";

const refusal = (error: string, message: string) => new GpuApiError(409, error, message, "req_x");

describe("the API's refusals in the dashboard's words", () => {
  it("says an uncovered hour in dollars, with the way to add funds, the API's micro-dollars kept for the details", () => {
    const plain = plainError(refusal("insufficient_funds", "balance_micros 0 does not cover one hour of this instance (price_hour_micros 690000)"), { balanceMicros: 0, priceHourMicros: 690_000 });
    expect(plain).toEqual({
      text: "Your balance of $0.00 does not cover the first hour ($0.69).", action: { label: "Add funds", to: "/billing" },
      details: "balance_micros 0 does not cover one hour of this instance (price_hour_micros 690000)",
    });
  });

  it("words capacity, busy GPUs, the GPU limit, a frozen account and the rate limit, and leaves any other message as the API wrote it", () => {
    expect(plainError(refusal("no_capacity", "no machine has 8 free rtx4090 GPU(s) right now")).text).toContain("No machine has that many");
    expect(plainError(refusal("gpus_busy", "x")).text).toContain("taken by someone else");
    expect(plainError(refusal("conflict", "the account may hold at most 16 GPUs at once (max_gpus) and holds 16")).action).toEqual({ label: "Your instances", to: "/instances" });
    expect(plainError(refusal("rate_limited", "x")).text).toContain("Wait a few seconds");
    expect(plainError(refusal("account_frozen", "the account is frozen")).text).toContain("on hold while one of its payments is reviewed");
    expect(plainError(refusal("budget_exceeded", "the account's monthly_budget_micros 5000000 is reached"))).toMatchObject({ text: expect.stringContaining("This month's budget is reached"), action: { label: "Budget", to: "/billing" } });
    expect(plainError(refusal("budget_exceeded", "API key key-aaaaaaaaaaaa's monthly_limit_micros 10 is reached")).text).toContain("This API key's monthly limit is reached");
    expect(plainError(refusal("conflict", "cannot stop an instance whose status is stopped"))).toEqual({ text: "cannot stop an instance whose status is stopped" });
  });
});
