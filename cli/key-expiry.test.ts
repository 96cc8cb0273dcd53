import { describe, expect, it } from "vitest";
import { expiryAfter, lifetime } from "./key-expiry.ts";

describe("gpu keys create --expires", () => {
  it("reads hours, days and years (365 days) as a lifetime from now", () => {
    expect(lifetime("12h")).toBe(12 * 3_600_000);
    expect(lifetime(" 30d ")).toBe(30 * 86_400_000);
    expect(lifetime("1y")).toBe(365 * 86_400_000);
    expect(expiryAfter(lifetime("1d"), Date.parse("2026-01-31T10:00:00Z"))).toBe("2026-02-01T10:00:00.000Z");
  });

  it.each(["30", "0d", "1.5d", "2w", "-1d", "d", "30 days"])("refuses %j, saying what it takes", (value) => {
    expect(() => lifetime(value)).toThrow("must be a lifetime such as 12h, 30d or 1y");
  });
});
