// Entry of the dev agent: the host agent with its stand-ins for a machine with no GPU or no container
// engine (`--runtime local`, `--gpus`), as `npm run dev`, the tests and the bench start it. Never
// bundled: the production entry is ../main.ts.
// First: ws reads its mask functions as it loads (ws-mask.ts).
import "../ws-mask.ts";
import { NVIDIA_DOCKER_HOST, runCommandLine } from "../agent-command.ts";
import { DEV_USAGE, parseDevCommandLine } from "./dev-config.ts";
import { LocalRuntime } from "./local-runtime.ts";
import { SyntheticGpuLoad } from "./synthetic-gpu-load.ts";

await runCommandLine(parseDevCommandLine(process.argv.slice(2), process.env), {
  usage: DEV_USAGE,
  discoverHost: async (config) =>
    config.gpus
      ? { gpus: config.gpus, driverVersion: config.syntheticVersions.driver, cudaVersion: config.syntheticVersions.cuda, realDevices: false }
      : NVIDIA_DOCKER_HOST.discoverHost(config),
  gpuSource: (config, log) => (config.gpus ? new SyntheticGpuLoad(config.gpus) : NVIDIA_DOCKER_HOST.gpuSource(config, log)),
  createRuntime: (config, machine) =>
    config.runtime === "local"
      ? new LocalRuntime({ stateDir: config.stateDir, readyDelayMs: config.readyDelayMs, pullMs: config.pullMs, jupyter: config.jupyter })
      : NVIDIA_DOCKER_HOST.createRuntime(config, machine, { hostLocalImages: true, scope: config.engineScope }),
  checksGpusAndEngine: (config) => config.runtime === "docker",
});
