// `gpu-rental-agent doctor`: runs the host tools and asks the engine and the server, then hands every
// answer to the pure checks beside this file. Kept thin: everything worth testing is in the checks.
import Docker from "dockerode";
import type { AgentConfig } from "../config.ts";
import { DRIVER_QUERY, GPU_QUERY, parseNvidiaSmiCsv } from "../gpus/nvidia-smi.ts";
import { probeDiskLimits } from "../runtime/docker-disk-limits.ts";
import { thisMachine } from "../runtime/docker-runtime.ts";
import type { RunCommand } from "../host-command.ts";
import type { CheckResult } from "./check.ts";
import { DF_ARGS, DISK_NEED_BYTES, DISK_WANT_BYTES, checkFreeDisk } from "./disk-check.ts";
import { checkDiskLimits, checkEngine, checkNvidiaRuntime, checkUserNamespaces, type EngineAnswer, type EngineInfo } from "./docker-checks.ts";
import { checkCuda, checkDriver, checkGpus } from "./gpu-checks.ts";
import { checkResourceSplit } from "./resource-check.ts";
import { checkContainerToolkit, checkRunc, type EngineVersion } from "./runtime-version-checks.ts";
import { checkServer, probeUrlOf, serverUrlOf, type ServerAnswer } from "./server-check.ts";
import { checkTenantNetwork } from "./tenant-network-check.ts";
import { probeTenantNetwork } from "./tenant-network-probe.ts";

/** `gpusAndEngine`: false for the dev agent's stand-ins (synthetic GPUs, the local runtime), which need neither. */
export async function runDoctor(config: AgentConfig, run: RunCommand, gpusAndEngine: boolean): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  if (gpusAndEngine) {
    const [driver, gpus, banner] = await Promise.all([run("nvidia-smi", DRIVER_QUERY), run("nvidia-smi", GPU_QUERY), run("nvidia-smi", [])]);
    results.push(checkDriver(driver), checkGpus(gpus), checkCuda(banner), checkResourceSplit(thisMachine(), gpus.ok ? parseNvidiaSmiCsv(gpus.stdout).length : 0));
    const docker = new Docker();
    const engine = await askEngine(docker);
    results.push(checkEngine(engine, process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock"), checkNvidiaRuntime(engine), checkUserNamespaces(engine));
    const [ctk, cli, runc] = await Promise.all([run("nvidia-ctk", ["--version"]), run("nvidia-container-cli", ["--version"]), run("runc", ["--version"])]);
    results.push(checkContainerToolkit(ctk, cli), checkRunc(engine.ok ? await askEngineVersion(docker) : null, runc));
    if (engine.ok) results.push(checkDiskLimits(await probeDiskLimits(docker), config.acceptUnenforcedDisk, engine.info.DockerRootDir));
    if (engine.ok && engine.info.DockerRootDir) {
      results.push(checkFreeDisk("docker data", engine.info.DockerRootDir, await run("df", DF_ARGS(engine.info.DockerRootDir)), DISK_NEED_BYTES, DISK_WANT_BYTES));
    }
    if (engine.ok) {
      const probe = await probeTenantNetwork({ docker, pool: config.networkPool, image: config.probeImage, run });
      results.push(checkTenantNetwork(probe, config.networkPool));
    }
  }
  results.push(
    checkFreeDisk("state dir", config.stateDir, await run("df", DF_ARGS(config.stateDir)), DISK_NEED_BYTES, DISK_NEED_BYTES),
    checkFreeDisk("model cache", config.cacheDir, await run("df", DF_ARGS(config.cacheDir)), DISK_NEED_BYTES, DISK_WANT_BYTES),
    checkServer(await askServer(config), serverUrlOf(config.connectUrl)),
  );
  return results;
}

async function askEngine(docker: Docker): Promise<EngineAnswer> {
  try {
    return { ok: true, info: (await docker.info()) as EngineInfo };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** The engine's GET /version, or null when it does not answer (the docker check says so). */
async function askEngineVersion(docker: Docker): Promise<EngineVersion | null> {
  return (docker.version() as Promise<EngineVersion>).catch(() => null);
}

async function askServer(config: AgentConfig): Promise<ServerAnswer> {
  try {
    const response = await fetch(probeUrlOf(config.connectUrl), {
      headers: { authorization: `Bearer ${config.token}` },
      signal: AbortSignal.timeout(15_000),
    });
    await response.body?.cancel();
    return { status: response.status };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { error: cause?.code ?? cause?.message ?? (error as Error).message };
  }
}
