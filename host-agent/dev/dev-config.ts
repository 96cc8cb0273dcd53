// The dev agent's command line: the agent's own (../config.ts) plus the stand-ins for a machine with
// no GPU or no container engine: the local runtime, synthetic GPUs and the versions they report.
import type { GpuInfo } from "../../protocol/messages.ts";
import { AGENT_FLAGS, nonNegative, parseSettings, readCommandLine, USAGE, type AgentConfig, type CommandLine } from "../config.ts";
import { parseGpuSpec } from "./synthetic-gpus.ts";

export interface DevAgentConfig extends AgentConfig {
  runtime: "docker" | "local";
  /** Synthetic GPUs from `--gpus`, or null to discover them with nvidia-smi. */
  gpus: GpuInfo[] | null;
  /** Reported with synthetic GPUs; real hosts report what nvidia-smi says. */
  syntheticVersions: { driver: string; cuda: string };
  /** Local runtime only: the dev containers' model-load delay and simulated pull time. */
  readyDelayMs: number;
  pullMs: number;
  /** Local runtime only: instances of the Jupyter template run the template's command, the real JupyterLab (DEV_JUPYTER=1, jupyter-container.ts). */
  jupyter: boolean;
  /** Docker runtime only: the containers it keeps to, when agents share one engine (DEV_ENGINE_SCOPE; DockerRuntimeOptions.scope). */
  engineScope: string | undefined;
}

/** A real pair (driver 580.126.09 ships CUDA 13.0), newer than every template's min_cuda, so the dev stack places anything. */
export const SYNTHETIC_DRIVER_VERSION = "580.126.09";
export const SYNTHETIC_CUDA_VERSION = "13.0";

export const DEV_USAGE = `${USAGE}
The dev agent (node host-agent/dev/dev-main.ts, what npm run dev and the tests start) also takes:
  --runtime local         AGENT_RUNTIME         dev stand-ins: each container a dev server process, no engine needed
  --gpus MODEL:N[,...]    AGENT_GPUS            synthetic GPUs instead of nvidia-smi's, e.g. rtx4090:8 (required with local)
  --cuda-version X.Y      AGENT_CUDA_VERSION    CUDA version reported with synthetic GPUs (default ${SYNTHETIC_CUDA_VERSION})
  --driver-version V      AGENT_DRIVER_VERSION  driver version reported with synthetic GPUs (default ${SYNTHETIC_DRIVER_VERSION})
  DEV_READY_DELAY_MS      local runtime: how long a dev container's ports refuse connections (default 3000)
  DEV_PULL_MS             local runtime: simulated image pull time (default 400)
  DEV_JUPYTER=1           local runtime: pytorch instances run the template's JupyterLab (scripts/ci/jupyter.sh installs it) on port 8888
  DEV_ENGINE_SCOPE=NAME   docker runtime: keep to containers of this scope, beside other agents on one engine (tests)
`;

const DEV_FLAGS = {
  ...AGENT_FLAGS,
  gpus: { type: "string" },
  "cuda-version": { type: "string" },
  "driver-version": { type: "string" },
} as const;

export function parseDevCommandLine(argv: string[], env: NodeJS.ProcessEnv): CommandLine<DevAgentConfig> {
  return readCommandLine(argv, DEV_FLAGS, (values) => {
    const settings = parseSettings(values, env);
    if ("error" in settings) return settings;
    const runtime = values.runtime ?? env.AGENT_RUNTIME ?? "docker";
    const gpuSpec = values.gpus ?? env.AGENT_GPUS ?? null;
    if (runtime !== "docker" && runtime !== "local") return { error: `--runtime must be docker or local, got "${runtime}"` };
    if (runtime === "local" && !gpuSpec) return { error: "--gpus (or AGENT_GPUS) is required with --runtime local, e.g. --gpus rtx4090:8" };
    const gpus = gpuSpec === null ? null : parseGpuSpec(gpuSpec);
    if (gpus !== null && "error" in gpus) return { error: gpus.error };
    const cuda = values["cuda-version"] ?? env.AGENT_CUDA_VERSION ?? SYNTHETIC_CUDA_VERSION;
    const driver = values["driver-version"] ?? env.AGENT_DRIVER_VERSION ?? SYNTHETIC_DRIVER_VERSION;
    if (!/^\d+\.\d+$/.test(cuda)) return { error: `--cuda-version must look like 12.4, got "${cuda}"` };
    if (!/^\d+(\.\d+)+$/.test(driver)) return { error: `--driver-version must look like 550.54.15, got "${driver}"` };
    const readyDelayMs = nonNegative(env.DEV_READY_DELAY_MS, 3000);
    const pullMs = nonNegative(env.DEV_PULL_MS, 400);
    if (readyDelayMs === null || pullMs === null) return { error: "DEV_READY_DELAY_MS and DEV_PULL_MS must be non-negative integers" };
    const jupyter = env.DEV_JUPYTER ?? "0";
    if (jupyter !== "0" && jupyter !== "1") return { error: `DEV_JUPYTER must be 0 or 1, got "${jupyter}"` };
    const engineScope = env.DEV_ENGINE_SCOPE || undefined;
    if (engineScope !== undefined && !/^[a-z0-9-]{1,40}$/.test(engineScope)) return { error: `DEV_ENGINE_SCOPE must be 1 to 40 of a-z, 0-9 and -, got "${engineScope}"` };
    return { ...settings, runtime, gpus, syntheticVersions: { driver, cuda }, readyDelayMs, pullMs, jupyter: jupyter === "1", engineScope };
  });
}
