import { describe, expect, it } from "vitest";
import { routeFigures, type PerRoute } from "./suite-context.ts";

const results: PerRoute<{ p50: number; rate: number }> = {
  ours: { p50: 3, rate: 30 },
  apps: { p50: 4, rate: 40 },
  direct: null,
  container: { p50: 1, rate: 100 },
  passthrough: { p50: 2, rate: 50 },
};

describe("routeFigures", () => {
  it("gives each figure of ours in order, then the apps origin's of those marked apps, each with its baselines", () => {
    const figures = routeFigures(results, [
      { id: "s.p50", label: "p50", unit: "ms", better: "lower", pick: (r) => r.p50, apps: true },
      { id: "s.rate", label: "rate", unit: "msg/s", better: "higher", pick: (r) => r.rate },
    ]);
    // nginx was not measured (absent), direct failed (null): both are null baselines.
    const p50Baselines = { direct: null, container: 1, nginx: null, passthrough: 2 };
    expect(figures).toEqual([
      { id: "s.p50", label: "p50", unit: "ms", better: "lower", ours: 3, baselines: p50Baselines },
      { id: "s.rate", label: "rate", unit: "msg/s", better: "higher", ours: 30, baselines: { direct: null, container: 100, nginx: null, passthrough: 50 } },
      { id: "s.p50.apps", label: "p50, apps origin", unit: "ms", better: "lower", ours: 4, baselines: p50Baselines },
    ]);
  });
});
