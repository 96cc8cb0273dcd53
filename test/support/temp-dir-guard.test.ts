// The guard of temporary folders: it moves the run's TMPDIR into a folder of its own, and at the end
// fails the run for a folder left there with a prefix the tests make, not for another one; the run's
// folder goes either way.
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import guardTempDirs from "./temp-dir-guard.ts";

afterEach(() => {
  process.exitCode = 0;
  vi.restoreAllMocks();
});

describe("the temporary folder guard", () => {
  it("fails the run, naming it, for a folder with a prefix the tests make left behind", () => {
    const printed = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const before = tmpdir();
    const teardown = guardTempDirs();
    const run = tmpdir();
    expect(run).not.toBe(before);
    const left = mkdtempSync(join(tmpdir(), "gpu-cp-big-"));
    teardown();
    expect(process.exitCode).toBe(1);
    expect(printed.mock.calls[0]![0]).toContain(left.split("/").pop());
    expect([existsSync(run), tmpdir()]).toEqual([false, before]);
  });

  it("passes with nothing left, or only what no test makes", () => {
    const printed = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const teardown = guardTempDirs();
    const run = tmpdir();
    mkdirSync(join(run, "some-tool-cache"));
    teardown();
    expect([process.exitCode, printed.mock.calls.length, existsSync(run)]).toEqual([0, 0, false]);
  });
});
