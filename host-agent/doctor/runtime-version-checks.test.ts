// Doctor's toolkit and runc checks on recorded real outputs (fixtures/SOURCES.md): a host with the
// fixed releases passes; an older release, or one doctor cannot read, fails its line with a fix and
// makes doctor exit 1.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { CommandResult } from "../host-command.ts";
import { exitCodeOf, formatReport } from "./check.ts";
import { checkContainerToolkit, checkRunc, runcFixed, type EngineVersion } from "./runtime-version-checks.ts";
import { version } from "./versions.ts";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
const printed = (stdout: string): CommandResult => ({ ok: true, stdout });
const notInstalled = (tool: string): CommandResult => ({ ok: false, missing: true, exitCode: null, output: `spawn ${tool} ENOENT` });
const dockerVersion = JSON.parse(fixture("engine-version-docker-20.10.json")) as EngineVersion;
const podmanVersion = JSON.parse(fixture("engine-version-podman-4.3.json")) as EngineVersion;
/** Docker's GET /version with another runc in its runc component, as a newer engine reports it. */
const dockerWithRunc = (runc: string): EngineVersion => ({
  Components: dockerVersion.Components?.map((c) => (c.Name === "runc" ? { ...c, Version: runc } : c)),
});

describe("runc's November 2025 fixes, by release line", () => {
  it.each([
    ["1.2.8", true], ["1.2.9", true], ["1.3.3", true], ["1.3.10", true], ["1.4.0", true], ["1.5.1", true], ["2.0.0", true],
    ["1.2.7", false], ["1.3.2", false], ["1.3.3-rc.1", false], ["1.4.0-rc.2", false], ["1.1.15", false], ["1.0.2", false], ["1.1.5+ds1", false],
  ])("runc %s: %s", (text, fixed) => {
    expect(runcFixed(version(text))).toBe(fixed);
  });
});

describe("doctor's container toolkit check", () => {
  it("passes from 1.17.8, read from nvidia-ctk, else nvidia-container-cli", () => {
    expect(checkContainerToolkit(printed(fixture("nvidia-ctk-version-1.17.8.txt")), notInstalled("nvidia-container-cli"))).toEqual({
      status: "ok", name: "container toolkit", detail: "NVIDIA Container Toolkit 1.17.8 (nvidia-ctk --version)",
    });
    const newerCli = printed(fixture("nvidia-container-cli-version-1.17.5.txt").replaceAll("1.17.5", "1.18.0"));
    expect(checkContainerToolkit(notInstalled("nvidia-ctk"), newerCli)).toMatchObject({ status: "ok", detail: "NVIDIA Container Toolkit 1.18.0 (nvidia-container-cli --version)" });
  });

  it.each<[string, CommandResult, CommandResult, string]>([
    ["1.16.1 from nvidia-ctk", printed(fixture("nvidia-ctk-version-1.16.1.txt")), notInstalled("nvidia-container-cli"),
      "NVIDIA Container Toolkit 1.16.1 (nvidia-ctk --version) is older than 1.17.8: an image can make its hook load a library as root on the host (CVE-2025-23266)"],
    ["1.17.5 from nvidia-container-cli", notInstalled("nvidia-ctk"), printed(fixture("nvidia-container-cli-version-1.17.5.txt")),
      "NVIDIA Container Toolkit 1.17.5 (nvidia-container-cli --version) is older than 1.17.8: an image can make its hook load a library as root on the host (CVE-2025-23266)"],
    ["neither tool installed", notInstalled("nvidia-ctk"), notInstalled("nvidia-container-cli"),
      "cannot tell the NVIDIA Container Toolkit's version (nvidia-ctk --version: not installed; nvidia-container-cli --version: not installed)"],
    ["tools that print no version", printed("usage: nvidia-ctk [global options] command\n"), { ok: false, missing: false, exitCode: 1, output: "nvidia-container-cli: initialization error\nmore" },
      "cannot tell the NVIDIA Container Toolkit's version (nvidia-ctk --version: no version in its output; nvidia-container-cli --version: exit 1: nvidia-container-cli: initialization error)"],
  ])("fails on %s, with the fix", (_, ctk, cli, detail) => {
    const result = checkContainerToolkit(ctk, cli);
    expect(result).toMatchObject({ status: "fail", name: "container toolkit", detail });
    expect(result.fix).toMatch(/NVIDIA Container Toolkit 1\.17\.8 or newer/);
    expect(exitCodeOf([result])).toBe(1);
  });
});

describe("doctor's runc check", () => {
  it("passes with a fixed runc, from the engine's components before runc --version", () => {
    expect(checkRunc(dockerWithRunc("1.3.3"), printed(fixture("runc-version-1.1.5-debian.txt")))).toEqual({ status: "ok", name: "runc", detail: "runc 1.3.3 (the engine's)" });
    expect(checkRunc({ Components: [] }, printed("runc version 1.2.8\ncommit: v1.2.8-0-g6a5a5b3\n"))).toMatchObject({ status: "ok", detail: "runc 1.2.8 (runc --version)" });
  });

  it.each<[string, EngineVersion | null, CommandResult, string]>([
    ["Docker's runc 1.0.2", dockerVersion, notInstalled("runc"), "runc 1.0.2 (the engine's)"],
    ["podman's runc 1.1.5+ds1", podmanVersion, notInstalled("runc"), "runc 1.1.5+ds1 (the engine's)"],
    ["runc 1.2.7 on the 1.2 line", dockerWithRunc("1.2.7"), notInstalled("runc"), "runc 1.2.7 (the engine's)"],
    ["runc 1.3.2 on the 1.3 line", null, printed("runc version 1.3.2\n"), "runc 1.3.2 (runc --version)"],
    ["runc --version's 1.1.5 where the engine names none", { Components: [] }, printed(fixture("runc-version-1.1.5-debian.txt")), "runc 1.1.5+ds1 (runc --version)"],
  ])("fails on %s, with the fix", (_, engine, runc, found) => {
    const result = checkRunc(engine, runc);
    expect(result).toMatchObject({
      status: "fail", name: "runc", detail: `${found} lacks the November 2025 fixes for escapes from a container (CVE-2025-31133, CVE-2025-52565, CVE-2025-52881)`,
    });
    expect(result.fix).toMatch(/1\.2\.8, 1\.3\.3, 1\.4\.0 or newer/);
  });

  it("fails when it cannot tell the version", () => {
    expect(checkRunc(null, notInstalled("runc"))).toMatchObject({ status: "fail", detail: "cannot tell runc's version (the engine names none; runc is not installed)" });
    expect(checkRunc({ Components: [{ Name: "runc", Version: "" }] }, printed("runc\n"))).toMatchObject({
      status: "fail", detail: "cannot tell runc's version (the engine names none; runc --version printed no version)",
    });
  });

  it("prints its failure as doctor's report line, and doctor exits 1", () => {
    const results = [checkContainerToolkit(printed(fixture("nvidia-ctk-version-1.17.8.txt")), notInstalled("nvidia-container-cli")), checkRunc(dockerVersion, notInstalled("runc"))];
    expect(formatReport(results).split("\n")[1]).toBe(
      "FAIL  runc               runc 1.0.2 (the engine's) lacks the November 2025 fixes for escapes from a container (CVE-2025-31133, CVE-2025-52565, CVE-2025-52881) — fix: install a runc with the November 2025 fixes (1.2.8, 1.3.3, 1.4.0 or newer; Docker's containerd.io package carries one), then systemctl restart docker",
    );
    expect(exitCodeOf(results)).toBe(1);
  });
});
