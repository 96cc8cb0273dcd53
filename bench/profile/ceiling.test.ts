import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ceilingLine, floorOwner, hostCeiling, machineOwner, roundCost, spreadOf, type CeilingRound } from "./ceiling.ts";
import type { CpuProfile } from "./inspector.ts";
import { countOwners, type ModuleStart } from "./sample-owners.ts";

/** A profile recorded by the bench's stack during small proxied requests (see its "recorded" field). */
const recorded = JSON.parse(readFileSync(new URL("./fixtures/small-requests.json", import.meta.url), "utf8")) as {
  requests: number; threadCpuMs: number; modules: Record<string, ModuleStart[]>; profile: CpuProfile;
};

const round = (threadCpuMs: number, units: number, own: number, other: number): CeilingRound =>
  ({ threadCpuMs, units, counts: { own, other, unattributed: 7, idle: 3 } });

describe("the MachineDO's owners", () => {
  it("its folder is its own; the Worker, wrangler's middleware, the other objects and the dev subclass are the rest; shared code no one's", () => {
    expect(machineOwner("durable-objects/machine/proxy-bridge.ts")).toBe("own");
    expect(machineOwner("workers/proxy/proxy.ts")).toBe("other");
    expect(machineOwner("workers/dev/dev-machine-do.ts")).toBe("other");
    expect(machineOwner("durable-objects/account/account-do.ts")).toBe("other");
    expect(machineOwner(".wrangler/tmp/bundle-kpJE8d/middleware-loader.entry.ts")).toBe("other");
    expect(machineOwner("node_modules/wrangler/templates/middleware/middleware-ensure-req-body-drained.ts")).toBe("other");
    expect(machineOwner("durable-objects/contracts/proxy-request.ts")).toBeNull();
    expect(machineOwner("durable-objects/sql.ts")).toBeNull();
    expect(machineOwner("protocol/mux/frames.ts")).toBeNull();
    expect(machineOwner("node_modules/zod/v4/core/core.js")).toBeNull();
  });
});

describe("baseline (f)'s owners", () => {
  it("its object is its own; its Worker and wrangler's middleware, named from its config's folder, are the rest", () => {
    expect(floorOwner("relay-object.ts")).toBe("own");
    expect(floorOwner("relay-worker.ts")).toBe("other");
    expect(floorOwner(".wrangler/tmp/bundle-KiojfW/middleware-loader.entry.ts")).toBe("other");
    expect(floorOwner("../../node_modules/wrangler/templates/middleware/common.ts")).toBe("other");
    expect(floorOwner("durable-objects/machine/proxy-bridge.ts")).toBeNull();
    expect(floorOwner("../../node_modules/zod/v4/core/core.js")).toBeNull();
  });
});

describe("the host ceiling from a recorded profile", () => {
  const counts = countOwners(recorded.profile, (id) => recorded.modules[id], machineOwner);
  const requestRound: CeilingRound = { threadCpuMs: recorded.threadCpuMs, units: recorded.requests, counts };

  it("splits the samples by owner", () => {
    expect(counts).toEqual({ own: 120, other: 142, unattributed: 48, idle: 44 });
  });

  it("the MachineDO's ms per request is the thread's ms per request × its share of the attributed samples", () => {
    const cost = roundCost(requestRound);
    expect(cost.threadMsPerUnit).toBeCloseTo(350 / 98);
    expect(cost.share).toBeCloseTo(120 / 262);
    expect(cost.ownMsPerUnit).toBeCloseTo(1.636, 3);
  });

  it("prints the ceiling: 1,000 ms ÷ the MachineDO's ms per request, and per MB in the slower direction", () => {
    const ceiling = hostCeiling({ request: [requestRound], download: [round(400, 32, 90, 10)], upload: [round(300, 32, 95, 5)] });
    expect(ceiling.requestsPerS).toBeCloseTo(611.3, 1);
    expect(ceiling.downloadMsPerMb.median).toBeCloseTo(11.25);
    expect(ceiling.uploadMsPerMb.median).toBeCloseTo(8.90625);
    expect(ceilingLine(ceiling)).toBe("host ceiling: 611 requests/s, 89 MB/s (download 89, upload 112)");
  });
});

describe("rounds", () => {
  it("take the median, with the spread", () => {
    expect(spreadOf([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3 });
    expect(spreadOf([Number.NaN, 4])).toEqual({ median: 4, min: 4, max: 4 });
  });

  it("a ceiling that could not be measured reads n/a", () => {
    const ceiling = hostCeiling({ request: [round(100, 0, 1, 1)], download: [], upload: [round(100, 10, 0, 0)] });
    expect(ceilingLine(ceiling)).toBe("host ceiling: n/a requests/s, n/a MB/s (download n/a, upload n/a)");
  });
});
