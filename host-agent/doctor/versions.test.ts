// Versions as the container tools print them, compared as their releases are ordered.
import { describe, expect, it } from "vitest";
import { compareVersions, parseVersion, version } from "./versions.ts";

describe("parseVersion", () => {
  it.each([
    ["NVIDIA Container Toolkit CLI version 1.17.8\ncommit: f202b80", [1, 17, 8], false, "1.17.8"],
    ["cli-version: 1.17.5\nlib-version: 1.17.5", [1, 17, 5], false, "1.17.5"],
    ["runc version 1.1.5+ds1\ncommit: 1.1.5+ds1-1+deb12u1", [1, 1, 5], false, "1.1.5+ds1"],
    ["1.0.0-rc10", [1, 0, 0], true, "1.0.0-rc10"],
    ["v1.4.0-rc.3", [1, 4, 0], true, "1.4.0-rc.3"],
    ["2.1", [2, 1, 0], false, "2.1"],
  ])("reads %j", (text, parts, preRelease, shown) => {
    expect(parseVersion(text)).toEqual({ parts, preRelease, text: shown });
  });

  it("finds none in text without one", () => {
    expect([parseVersion(""), parseVersion("nvidia-ctk: command not found"), parseVersion("version unknown")]).toEqual([null, null, null]);
  });
});

describe("compareVersions", () => {
  it("orders by each numeric part, not as text", () => {
    expect(compareVersions(version("1.17.8"), version("1.17.10"))).toBeLessThan(0);
    expect(compareVersions(version("1.18.0"), version("1.17.8"))).toBeGreaterThan(0);
    expect(compareVersions(version("1.2.8"), version("1.2.8"))).toBe(0);
    expect(compareVersions(version("2.0.0"), version("1.99.99"))).toBeGreaterThan(0);
  });

  it("puts a pre-release before its release, and ignores a distribution's build metadata", () => {
    expect(compareVersions(version("1.3.3-rc.1"), version("1.3.3"))).toBeLessThan(0);
    expect(compareVersions(version("1.3.3-rc.1"), version("1.3.2"))).toBeGreaterThan(0);
    expect(compareVersions(version("1.2.8+ds1"), version("1.2.8"))).toBe(0);
  });
});
