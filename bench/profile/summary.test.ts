import { describe, expect, it } from "vitest";
import type { CpuProfile } from "./inspector.ts";
import { renderProfile, summarizeProfile } from "./summary.ts";

// root → handler → { parse, (idle) }: parse sampled 3 times, handler itself once, idle twice.
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: { functionName: "(root)", url: "", lineNumber: -1 }, children: [2, 4] },
    { id: 2, callFrame: { functionName: "handler", url: "file:///app/src/proxy.ts", lineNumber: 9 }, children: [3] },
    { id: 3, callFrame: { functionName: "parse", url: "file:///app/src/codec.ts", lineNumber: 0 } },
    { id: 4, callFrame: { functionName: "(idle)", url: "", lineNumber: -1 } },
  ],
  samples: [3, 3, 2, 4, 3, 4],
  timeDeltas: [1, 1, 1, 1, 1, 1],
};

describe("CPU profile summary", () => {
  it("ranks self and inclusive time as shares of all samples, with file:line of each function", () => {
    const summary = summarizeProfile(profile);
    expect(summary.samples).toBe(6);
    expect(summary.idleShare).toBeCloseTo(2 / 6);
    expect(summary.self).toEqual([
      { name: "parse src/codec.ts:1", share: 3 / 6 },
      { name: "(idle)", share: 2 / 6 },
      { name: "handler src/proxy.ts:10", share: 1 / 6 },
    ]);
    expect(summary.inclusive[0]).toEqual({ name: "handler src/proxy.ts:10", share: 4 / 6 });
  });

  it("renders percentages", () => {
    expect(renderProfile("agent", summarizeProfile(profile, 1)).split("\n")).toEqual([
      "agent: 6 samples, 33% idle", " self:", "   50.0%  parse src/codec.ts:1", " inclusive:", "   66.7%  handler src/proxy.ts:10",
    ]);
  });
});
