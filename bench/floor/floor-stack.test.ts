import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { poll } from "../../test/e2e/support/e2e-stack.ts";
import { workerInspectorUrl } from "../profile/inspector-url.ts";
import { startFloorStack, type FloorStack } from "./floor-stack.ts";

/** Gone, or a zombie that nothing has reaped yet (a process whose parent ended is a child of init). */
const ended = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z");
  } catch {
    return true;
  }
};
const floorDirs = () => readdirSync(tmpdir()).filter((name) => name.startsWith("gpu-rental-bench-floor-"));

describe("baseline (f), the bare relay", () => {
  let floor: FloorStack;
  let before: string[];
  beforeAll(async () => {
    before = floorDirs();
    floor = await startFloorStack();
  }, 90_000);
  afterAll(() => floor?.stop());

  it("relays concurrent requests through its object and its peer, each answered with the peer's body", async () => {
    const answers = await Promise.all(Array.from({ length: 32 }, () => fetch(floor.url).then(async (r) => [r.status, await r.text()])));
    expect(answers).toEqual(Array.from({ length: 32 }, () => [200, '{"status":"ok"}']));
  });

  it("names the workerd whose isolate runs them, with an inspector to profile it", async () => {
    expect(await workerInspectorUrl(floor.workerdPid)).toMatch(/^ws:\/\//);
  });

  it("leaves nothing behind: its processes end and its state folder goes", async () => {
    const pid = floor.workerdPid;
    const created = floorDirs().filter((name) => !before.includes(name));
    expect(created).toHaveLength(1);
    await floor.stop();
    await poll(async () => ended(pid), Boolean, 5_000);
    expect(floorDirs().filter((name) => !before.includes(name))).toEqual([]);
  });
});
