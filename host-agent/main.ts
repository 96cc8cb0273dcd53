// Entry of the host agent: `node host-agent/main.ts --server URL --token TOKEN [--runtime docker|local]
// [--gpus rtx4090:8] [--state-dir DIR] [--cache-dir DIR]` (see config.ts for the environment fallbacks).
import type { GpuInfo } from "../protocol/messages.ts";
import { startAgent } from "./agent.ts";
import { parseConfig, USAGE } from "./config.ts";
import { discoverNvidiaGpus } from "./gpus/nvidia-smi.ts";
import { createLogger, errorMessage } from "./log.ts";
import { DockerRuntime } from "./runtime/docker-runtime.ts";
import { LocalRuntime } from "./runtime/local-runtime.ts";
import type { ContainerRuntime } from "./runtime/runtime.ts";

const parsed = parseConfig(process.argv.slice(2), process.env);
if (!parsed.ok) {
  process.stderr.write(`host-agent: ${parsed.error}\n${USAGE}\n`);
  process.exit(2);
}
const config = parsed.config;
const log = createLogger();

let gpus: GpuInfo[];
try {
  gpus = config.gpus ?? (await discoverNvidiaGpus());
} catch (error) {
  log.error("GPU discovery failed", { error: errorMessage(error) });
  process.exit(1);
}

const runtime: ContainerRuntime =
  config.runtime === "docker"
    ? new DockerRuntime({ modelCacheDir: config.cacheDir })
    : new LocalRuntime({ stateDir: config.stateDir, readyDelayMs: config.readyDelayMs, pullMs: config.pullMs });
const agent = startAgent({ connectUrl: config.connectUrl, token: config.token, runtime, gpus, cacheDir: config.cacheDir, log });

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    agent.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error("shutdown failed", { error: errorMessage(error) });
        process.exit(1);
      },
    );
  });
}
