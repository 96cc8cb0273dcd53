// Entry of the host agent (`gpu-rental-agent` once built; `node host-agent/main.ts` from the repo):
// runs the agent, or `doctor`, `--help`, `--version`. See config.ts for the flags and variables.
import { AGENT_VERSION, startAgent } from "./agent.ts";
import { parseCommandLine, USAGE, type AgentConfig } from "./config.ts";
import { exitCodeOf, formatReport } from "./doctor/check.ts";
import { runDoctor } from "./doctor/doctor.ts";
import { discoverNvidiaHost, type NvidiaHost } from "./gpus/nvidia-smi.ts";
import { HostHealth } from "./host-health.ts";
import { runHostCommand } from "./host-command.ts";
import { createLogger, errorMessage } from "./log.ts";
import { DockerRuntime, thisMachine } from "./runtime/docker-runtime.ts";
import { LocalRuntime } from "./runtime/local-runtime.ts";
import type { ContainerRuntime } from "./runtime/runtime.ts";
import { watchFirewall } from "./tenant-firewall/rules-watch.ts";

const commandLine = parseCommandLine(process.argv.slice(2), process.env);
if (!commandLine.ok) {
  process.stderr.write(`gpu-rental-agent: ${commandLine.error}\nRun gpu-rental-agent --help for the flags.\n`);
  process.exit(2);
}
switch (commandLine.command) {
  case "help":
    process.stdout.write(USAGE);
    break;
  case "version":
    process.stdout.write(`${AGENT_VERSION}\n`);
    break;
  case "doctor": {
    const results = await runDoctor(commandLine.config, runHostCommand);
    process.stdout.write(formatReport(results));
    process.exitCode = exitCodeOf(results);
    break;
  }
  case "run":
    await runAgent(commandLine.config);
    break;
}

async function runAgent(config: AgentConfig): Promise<void> {
  const log = createLogger();
  let host: NvidiaHost;
  try {
    host = config.gpus
      ? { gpus: config.gpus, driverVersion: config.syntheticVersions.driver, cudaVersion: config.syntheticVersions.cuda }
      : await discoverNvidiaHost(runHostCommand);
  } catch (error) {
    log.error("GPU discovery failed", { error: errorMessage(error) });
    process.exit(1);
  }
  if (!host.cudaVersion) log.warn("nvidia-smi shows no CUDA version: no template will be placed on this host", { driver: host.driverVersion });

  const resources = thisMachine();
  const docker =
    config.runtime === "docker"
      ? new DockerRuntime({
          modelCacheDir: config.cacheDir, networkPool: config.networkPool, resources, hostGpus: host.gpus.length, acceptUnenforcedDisk: config.acceptUnenforcedDisk,
        })
      : null;
  const runtime: ContainerRuntime = docker ?? new LocalRuntime({ stateDir: config.stateDir, readyDelayMs: config.readyDelayMs, pullMs: config.pullMs });
  const health = new HostHealth();
  // Tenants' containers are only as safe as the host firewall around them: checked before the first
  // hello, then every minute (the local runtime's dev stand-ins have no network of their own).
  const firewall = docker ? watchFirewall({ run: runHostCommand, pool: config.networkPool, health, log }) : null;
  await firewall?.check();
  const disk = await docker?.diskLimits();
  if (disk?.enforced === false) {
    log.warn("disk_gb cannot be enforced on this host", { reason: disk.reason, unenforced_disk: config.acceptUnenforcedDisk ? "accept" : "refuse" });
    if (!config.acceptUnenforcedDisk) health.set("disk", `disk_gb cannot be enforced here (${disk.reason}) and --unenforced-disk is refuse`);
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
    log,
    health,
  });

  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      log.info("shutting down", { signal });
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
