import { describe, expect, it } from "vitest";
import type { CpuProfile } from "./inspector.ts";
import { bundleModules, countOwners, moduleAt, ownShare, type Owner } from "./sample-owners.ts";

const bundle = [
  "var __defProp = Object.defineProperty;", // 0
  "// core/clock.ts", // 1
  "var clock = {};", // 2
  "// @__NO_SIDE_EFFECTS__", // 3
  "// durable-objects/machine/proxy-bridge.ts", // 4
  "function frame() {}", // 5
  "// workers/dev/dev-machine-do.ts", // 6
  "class DevMachineDO {}", // 7
  "// node_modules/zod/v4/core/core.js", // 8
  "function parse() {}", // 9
].join("\n");

const owners = (module: string): Owner | null =>
  module.startsWith("durable-objects/machine/") ? "own" : module.startsWith("workers/") ? "other" : null;

const frame = (id: number, functionName: string, lineNumber: number, children: number[] = [], scriptId = "7") =>
  ({ id, callFrame: { functionName, scriptId, url: "dev-main.js", lineNumber }, children });

// (root) → DevMachineDO.webSocketMessage (workers/dev) → frame (machine) → parse (zod)
//        → DevMachineDO.fetch alone; → parse alone (a shared library's continuation)
//        → (garbage collector), (program), (idle), and a frame of a script with no module heads
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: { functionName: "(root)", url: "", lineNumber: -1 }, children: [2, 5, 6, 7, 8, 9, 10] },
    frame(2, "webSocketMessage", 7, [3]),
    frame(3, "frame", 5, [4]),
    frame(4, "parse", 9),
    frame(5, "fetch", 7),
    frame(6, "parse", 9),
    { id: 7, callFrame: { functionName: "(garbage collector)", url: "", lineNumber: -1 } },
    { id: 8, callFrame: { functionName: "(program)", url: "", lineNumber: -1 } },
    { id: 9, callFrame: { functionName: "(idle)", url: "", lineNumber: -1 } },
    frame(10, "wrapper", 5, [], "8"),
  ],
  samples: [4, 4, 3, 2, 5, 6, 7, 8, 9, 9, 10],
  timeDeltas: Array.from({ length: 11 }, () => 200),
};

describe("a bundle's modules", () => {
  it("are read from esbuild's head comments, not from other comments", () => {
    expect(bundleModules(bundle)).toEqual([
      { line: 1, module: "core/clock.ts" },
      { line: 4, module: "durable-objects/machine/proxy-bridge.ts" },
      { line: 6, module: "workers/dev/dev-machine-do.ts" },
      { line: 8, module: "node_modules/zod/v4/core/core.js" },
    ]);
  });

  it("a line lies in the module whose head is the last at or before it", () => {
    const starts = bundleModules(bundle);
    expect(moduleAt(starts, 0)).toBeNull();
    expect(moduleAt(starts, 1)).toBe("core/clock.ts");
    expect(moduleAt(starts, 3)).toBe("core/clock.ts");
    expect(moduleAt(starts, 5)).toBe("durable-objects/machine/proxy-bridge.ts");
    expect(moduleAt(starts, 99)).toBe("node_modules/zod/v4/core/core.js");
  });
});

describe("samples by owner", () => {
  const counts = countOwners(profile, (id) => (id === "7" ? bundleModules(bundle) : undefined), owners);

  it("an own frame anywhere on the stack makes the sample own, also under another owner's subclass", () => {
    // 4, 4 (zod called by the machine's frame, which the subclass's method called) and 3.
    expect(counts.own).toBe(3);
  });

  it("another owner's frame without an own one makes it the rest's", () => {
    // 2 (the subclass's method itself) and 5 (its fetch).
    expect(counts.other).toBe(2);
  });

  it("garbage collection, the runtime's native work, shared code alone and unknown scripts are unattributed; idle is apart", () => {
    expect(counts.unattributed).toBe(4);
    expect(counts.idle).toBe(2);
  });

  it("the own share is of the attributed samples, which shares out the unattributed in the same proportion", () => {
    expect(ownShare(counts)).toBeCloseTo(3 / 5);
    expect(ownShare({ own: 0, other: 0, unattributed: 5, idle: 1 })).toBeNaN();
  });
});
