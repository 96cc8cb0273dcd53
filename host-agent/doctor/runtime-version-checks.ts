// Doctor's checks that the software between a tenant's container and the host has the fixes for
// the known escapes from a stranger's image: the NVIDIA Container Toolkit from 1.17.8
// (CVE-2025-23266, whose hook loaded a library the image named, as root on the host) and runc with
// the November 2025 fixes (CVE-2025-31133, CVE-2025-52565, CVE-2025-52881: 1.2.8 on the 1.2 line,
// 1.3.3 on 1.3, any release from 1.4.0). A version doctor cannot read fails as surely as an old one.
// Pure functions of what `nvidia-ctk --version`, `nvidia-container-cli --version`, `runc --version`
// and the engine's GET /version printed.
import { failureText, type CommandResult } from "../host-command.ts";
import { fail, ok, type CheckResult } from "./check.ts";
import { compareVersions, parseVersion, version, type Version } from "./versions.ts";

export const MIN_TOOLKIT = version("1.17.8");

/** The first runc release with the November 2025 fixes on each release line; lines after these had them from their first release. */
const FIXED_RUNC: readonly Version[] = [version("1.2.8"), version("1.3.3"), version("1.4.0")];

/** The fields of GET /version that the runc check reads: Docker names its runc component `runc`, podman `OCI Runtime (runc)`. */
export interface EngineVersion {
  Components?: { Name?: string; Version?: string }[];
}

export function checkContainerToolkit(ctk: CommandResult, cli: CommandResult): CheckResult {
  const name = "container toolkit";
  const fix = `install NVIDIA Container Toolkit ${MIN_TOOLKIT.text} or newer (apt install nvidia-container-toolkit), then systemctl restart docker`;
  const read = [
    { tool: "nvidia-ctk --version", result: ctk },
    { tool: "nvidia-container-cli --version", result: cli },
  ].map(({ tool, result }) => ({ tool, result, found: result.ok ? parseVersion(result.stdout) : null }));
  const known = read.find((r) => r.found !== null);
  if (!known?.found) {
    const why = read.map(({ tool, result }) => `${tool}: ${result.ok ? "no version in its output" : result.missing ? "not installed" : failureText(result)}`).join("; ");
    return fail(name, `cannot tell the NVIDIA Container Toolkit's version (${why})`, fix);
  }
  if (compareVersions(known.found, MIN_TOOLKIT) < 0) {
    return fail(
      name,
      `NVIDIA Container Toolkit ${known.found.text} (${known.tool}) is older than ${MIN_TOOLKIT.text}: an image can make its hook load a library as root on the host (CVE-2025-23266)`,
      fix,
    );
  }
  return ok(name, `NVIDIA Container Toolkit ${known.found.text} (${known.tool})`);
}

/** The runc version the engine reports (null when it names no runc), else what `runc --version` printed. */
export function checkRunc(engine: EngineVersion | null, runc: CommandResult): CheckResult {
  const name = "runc";
  const fix = "install a runc with the November 2025 fixes (1.2.8, 1.3.3, 1.4.0 or newer; Docker's containerd.io package carries one), then systemctl restart docker";
  const component = engine?.Components?.find((c) => c.Name === "runc" || /\(runc\)$/.test(c.Name ?? ""));
  const fromEngine = component?.Version ? parseVersion(component.Version) : null;
  const fromCommand = runc.ok ? parseVersion(runc.stdout) : null;
  const found = fromEngine ?? fromCommand;
  const source = fromEngine ? "the engine's" : "runc --version";
  if (!found) {
    const why = runc.ok ? "runc --version printed no version" : runc.missing ? "runc is not installed" : `runc --version: ${failureText(runc)}`;
    return fail(name, `cannot tell runc's version (the engine names none; ${why})`, fix);
  }
  if (!runcFixed(found)) {
    return fail(name, `runc ${found.text} (${source}) lacks the November 2025 fixes for escapes from a container (CVE-2025-31133, CVE-2025-52565, CVE-2025-52881)`, fix);
  }
  return ok(name, `runc ${found.text} (${source})`);
}

/** Whether a runc version has the November 2025 fixes: at least its release line's first fixed release; below 1.2 none has. */
export function runcFixed(runc: Version): boolean {
  const [major, minor] = runc.parts;
  const line = FIXED_RUNC.find((fixed) => fixed.parts[0] === major && fixed.parts[1] === minor);
  if (line) return compareVersions(runc, line) >= 0;
  const newest = FIXED_RUNC.at(-1)!;
  return compareVersions(runc, newest) >= 0;
}
