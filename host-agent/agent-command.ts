// Does what the agent's command line asks (run the agent, doctor, --help, --version), for both entries:
// the production agent (main.ts: nvidia-smi's GPUs, the docker runtime) and the dev agent
// (dev/dev-main.ts), which hands in its stand-ins instead.
import { join } from "node:path";
import Docker from "dockerode";
import { AGENT_VERSION, startAgent } from "./agent.ts";
import { loadOrCreateHostKey } from "./ssh/host-key.ts";
import type { AgentConfig, CommandLine } from "./config.ts";
import { exitCodeOf, formatReport } from "./doctor/check.ts";
import { runDoctor } from "./doctor/doctor.ts";
import { discoverNvidiaHost, type NvidiaHost } from "./gpus/nvidia-smi.ts";
import { diskOf } from "./host-disk.ts";
import { HostHealth } from "./host-health.ts";
import { runHostCommand } from "./host-command.ts";
import { createLogger, errorMessage, type Logger } from "./log.ts";
import type { GpuSource } from "./metrics/gpu-source.ts";
import { NvidiaSmiStream } from "./metrics/nvidia-smi-stream.ts";
import { logUncaughtFaults } from "./process-faults.ts";
import type { HostResources } from "../protocol/resource-share.ts";
import { DockerRuntime, thisMachine, type DockerRuntimeOptions } from "./runtime/docker-runtime.ts";
import { ImagePruning } from "./runtime/image-pruning.ts";
import type { ContainerRuntime } from "./runtime/runtime.ts";
import { applyFirewall, firewallScript } from "./tenant-firewall/firewall-script.ts";
import { followRulesetChanges } from "./tenant-firewall/ruleset-monitor.ts";
import { VolumeLibrary } from "./volumes/volume-library.ts";
import { watchFirewall } from "./tenant-firewall/rules-watch.ts";

/** What makes one agent: its usage text, its GPUs and what samples them, its runtime, and whether doctor checks the GPUs and the engine. */
export interface AgentHost<Config extends AgentConfig> {
  usage: string;
  discoverHost(config: Config): Promise<NvidiaHost>;
  gpuSource(config: Config, log: Logger): GpuSource;
  createRuntime(config: Config, machine: RuntimeMachine): ContainerRuntime;
  checksGpusAndEngine(config: Config): boolean;
}

/** What the runtime is told about the host: its memory and CPUs, its GPU count, and whether those GPUs are real devices. */
export interface RuntimeMachine {
  resources: HostResources;
  hostGpus: number;
  gpuDevices: boolean;
}

/** The production agent's: a real GPU host with a Docker engine. */
export const NVIDIA_DOCKER_HOST: Omit<AgentHost<AgentConfig>, "usage" | "createRuntime"> & {
  /** `dev`: the dev agent's own runtime options (dev-main.ts); the production entry gives none. */
  createRuntime(config: AgentConfig, machine: RuntimeMachine, dev?: Pick<DockerRuntimeOptions, "hostLocalImages" | "scope">): ContainerRuntime;
} = {
  discoverHost: () => discoverNvidiaHost(runHostCommand),
  gpuSource: (config, log) => new NvidiaSmiStream({ intervalMs: config.metricsIntervalMs, log }),
  createRuntime: (config, { resources, hostGpus, gpuDevices }, dev = {}) => {
    const docker = new Docker();
    return new DockerRuntime({
      modelCacheDir: config.cacheDir, networkPool: config.networkPool, resources, hostGpus, gpuDevices, acceptUnenforcedDisk: config.acceptUnenforcedDisk, docker,
      volumesDir: join(config.stateDir, "instances"),
      images: new ImagePruning(docker, { file: join(config.stateDir, "custom-images.json"), keepMs: config.imageKeepMs }), ...dev,
    });
  },
  checksGpusAndEngine: () => true,
};

export async function runCommandLine<Config extends AgentConfig>(commandLine: CommandLine<Config>, host: AgentHost<Config>): Promise<void> {
  if (!commandLine.ok) {
    process.stderr.write(`gpu-rental-agent: ${commandLine.error}\nRun gpu-rental-agent --help for the flags.\n`);
    process.exit(2);
  }
  switch (commandLine.command) {
    case "help":
      process.stdout.write(host.usage);
      break;
    case "version":
      process.stdout.write(`${AGENT_VERSION}\n`);
      break;
    case "doctor": {
      const results = await runDoctor(commandLine.config, runHostCommand, host.checksGpusAndEngine(commandLine.config));
      process.stdout.write(formatReport(results));
      process.exitCode = exitCodeOf(results);
      break;
    }
    case "run":
      await runAgent(commandLine.config, host);
      break;
  }
}

async function runAgent<Config extends AgentConfig>(config: Config, agentHost: AgentHost<Config>): Promise<void> {
  const log = createLogger();
  let host: NvidiaHost;
  try {
    host = await agentHost.discoverHost(config);
  } catch (error) {
    log.error("GPU discovery failed", { error: errorMessage(error) });
    process.exit(1);
  }
  if (!host.cudaVersion) log.warn("nvidia-smi shows no CUDA version: no template will be placed on this host", { driver: host.driverVersion });

  const resources = thisMachine();
  const runtime = agentHost.createRuntime(config, { resources, hostGpus: host.gpus.length, gpuDevices: host.realDevices });
  const docker = runtime instanceof DockerRuntime ? runtime : null;
  const health = new HostHealth();
  // Tenants' containers are only as safe as the host firewall around them: checked before the first
  // hello, on every ruleset change and every few seconds, put back when it is not in place, instances
  // off the network meanwhile (the dev agent's local runtime has no network of its own).
  const script = firewallScript();
  const firewall = docker
    ? watchFirewall({
      run: runHostCommand, pool: config.networkPool, health, log,
      restore: () => applyFirewall(runHostCommand, script, config.networkPool),
      setNetworksUp: (up) => docker.setNetworksUp(up),
      followChanges: (onChange) => followRulesetChanges(onChange, log),
    })
    : null;
  await firewall?.check();
  const disk = await docker?.diskLimits();
  if (disk?.enforced === false) {
    log.warn("disk_gb cannot be enforced on this host", { reason: disk.reason, unenforced_disk: config.acceptUnenforcedDisk ? "accept" : "refuse" });
    if (!config.acceptUnenforcedDisk) health.set("disk", `disk_gb cannot be enforced here (${disk.reason}) and --unenforced-disk is refuse`);
  }
  // Instances' disks live in the engine's data root: the hello says its size. The local runtime's
  // instances are folders on the developer's own disk that reserve nothing, so it says none: a laptop's
  // small disk must not refuse the first launch of a stack that only stands in for a host.
  const diskDir = docker ? await docker.dataRoot().catch(() => undefined) : undefined;
  if (docker && (diskDir === undefined || (await diskOf(diskDir)) === null)) {
    log.warn("the disk instances live on cannot be seen from here: the hello says none, and placement assumes no disk limit", { dir: diskDir });
  }
  const agent = startAgent({
    connectUrl: config.connectUrl,
    token: config.token,
    runtime,
    gpus: host.gpus,
    versions: { driver: host.driverVersion, cuda: host.cudaVersion },
    resources,
    diskGbEnforced: typeof disk?.enforced === "boolean" ? disk.enforced : undefined,
    cacheDir: config.cacheDir,
    health,
    log,
    metrics: { gpus: agentHost.gpuSource(config, log), intervalMs: config.metricsIntervalMs },
    sshHostKey: await loadOrCreateHostKey(config.stateDir),
    uploadsDir: join(config.stateDir, "uploads"),
    uploadStagingBytes: config.uploadStagingBytes,
    diskDir,
    volumes: { library: new VolumeLibrary(config.stateDir, config.volumeCacheBytes), saveIntervalMs: config.volumeSaveMs },
  });
  const stopPruning = docker?.images?.start(
    (removed) => log.info("tenants' images no container used removed", { images: removed }),
    (error) => log.warn("removing unused images failed", { error: errorMessage(error) }),
  );

  // From here on the agent carries tenants' streams: a fault in one is logged, not the end of all
  // (process-faults.ts). A failure while starting still ends the process, for systemd to restart it.
  logUncaughtFaults(log);
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log.info("shutting down", { signal });
      stopPruning?.();
      firewall?.close();
      agent.close().then(
        () => process.exit(0),
        (error: unknown) => {
          log.error("shutdown failed", { error: errorMessage(error) });
          process.exit(1);
        },
      );
    });
  }
}
