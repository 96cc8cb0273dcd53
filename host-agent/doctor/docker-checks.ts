// Doctor's container engine checks, pure functions of the engine's GET /info answer (the same
// fields `docker info --format '{{json .}}'` prints): the engine, the NVIDIA runtime, user
// namespaces; and disk limits, from the engine's answer to a probe container (docker-disk-limits.ts).
import type { DiskLimits } from "../runtime/docker-disk-limits.ts";
import { fail, ok, warn, type CheckResult } from "./check.ts";

/** The fields of GET /info that the checks read. */
export interface EngineInfo {
  ServerVersion?: string;
  OperatingSystem?: string;
  DockerRootDir?: string;
  Runtimes?: Record<string, unknown>;
  /** `name=userns` while dockerd remaps containers' users (userns-remap), `name=rootless` for a rootless engine. */
  SecurityOptions?: string[];
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

/** Whether root in a container is an unprivileged user of the host (dockerd's userns-remap, or a rootless engine): recommended, not needed. */
export function checkUserNamespaces(answer: EngineAnswer): CheckResult {
  const name = "user namespaces";
  if (!answer.ok) return fail(name, "the engine did not answer", "fix the docker check first");
  const options = answer.info.SecurityOptions ?? [];
  if (options.includes("name=userns")) return ok(name, "userns-remap: root in a container is an unprivileged user of the host");
  if (options.includes("name=rootless")) return ok(name, "a rootless engine: root in a container is this engine's unprivileged user");
  return warn(
    name,
    "containers' root is the host's root (no userns-remap): a container escape would land as root",
    `set "userns-remap": "default" in /etc/docker/daemon.json and restart docker, with no instances on the host (docs/deploy.md, "User namespaces")`,
  );
}

/**
 * Whether disk_gb is enforced here (the engine accepted a size limit on a probe container: overlay2
 * on xfs mounted with pquota), and what the operator chose for a host where it is not.
 */
export function checkDiskLimits(limits: DiskLimits, acceptUnenforced: boolean, dataRoot: string | undefined): CheckResult {
  const fix = `put ${dataRoot ?? "the engine's data root"} on an xfs filesystem mounted with pquota`;
  if (limits.enforced === true) return ok("disk limits", "disk_gb is enforced: the engine limits each container's writable layer");
  if (limits.enforced === null) return warn("disk limits", `could not check whether disk_gb is enforced (${limits.reason})`, "fix the docker check first");
  if (acceptUnenforced) {
    return warn("disk limits", `disk_gb cannot be enforced (${limits.reason}); --unenforced-disk accept: instances run without a disk limit, each saying so`, fix);
  }
  return fail(
    "disk limits",
    `disk_gb cannot be enforced (${limits.reason}); --unenforced-disk refuse: this host takes no instances`,
    `${fix}, or accept instances without a disk limit (--unenforced-disk accept, AGENT_UNENFORCED_DISK=accept)`,
  );
}
