// Doctor's container engine checks, pure functions of the engine's GET /info answer (the same
// fields `docker info --format '{{json .}}'` prints): the engine, the NVIDIA runtime, disk limits.
import { fail, ok, warn, type CheckResult } from "./check.ts";

/** The fields of GET /info that the checks read. */
export interface EngineInfo {
  ServerVersion?: string;
  OperatingSystem?: string;
  Driver?: string;
  DriverStatus?: [string, string][];
  DockerRootDir?: string;
  Runtimes?: Record<string, unknown>;
}

export type EngineAnswer = { ok: true; info: EngineInfo } | { ok: false; error: string };

export function checkEngine(answer: EngineAnswer, dockerHost: string): CheckResult {
  if (!answer.ok) {
    return fail("docker", `no engine answers at ${dockerHost} (${answer.error})`, "install Docker Engine and start it (systemctl enable --now docker), or set DOCKER_HOST");
  }
  const { ServerVersion, OperatingSystem } = answer.info;
  return ok("docker", `engine ${ServerVersion ?? "of unknown version"}${OperatingSystem ? ` on ${OperatingSystem}` : ""} at ${dockerHost}`);
}

export function checkNvidiaRuntime(answer: EngineAnswer): CheckResult {
  if (!answer.ok) return fail("nvidia runtime", "the engine did not answer", "fix the docker check first");
  const runtimes = Object.keys(answer.info.Runtimes ?? {});
  if (runtimes.includes("nvidia")) return ok("nvidia runtime", `registered (runtimes: ${runtimes.join(", ")})`);
  return fail(
    "nvidia runtime",
    `the engine has no nvidia runtime (runtimes: ${runtimes.join(", ") || "none"}), so containers cannot get GPUs`,
    "install the NVIDIA Container Toolkit, then nvidia-ctk runtime configure --runtime=docker && systemctl restart docker",
  );
}

/** StorageOpt size (how disk_gb is enforced) needs overlay2 on xfs mounted with pquota; anything else is a warning. */
export function checkDiskLimits(answer: EngineAnswer): CheckResult {
  if (!answer.ok) return fail("disk limits", "the engine did not answer", "fix the docker check first");
  const driver = answer.info.Driver ?? "unknown";
  const backing = answer.info.DriverStatus?.find(([key]) => key === "Backing Filesystem")?.[1] ?? "unknown";
  if (driver.startsWith("overlay") && backing === "xfs") {
    return ok("disk limits", `storage driver ${driver} on xfs: disk_gb is enforced if the filesystem is mounted with pquota (instances say so when it is not)`);
  }
  return warn(
    "disk limits",
    `storage driver ${driver} on ${backing}: disk_gb cannot be enforced, instances report it as not enforced`,
    `put ${answer.info.DockerRootDir ?? "Docker's data root"} on an xfs filesystem mounted with pquota`,
  );
}
