// The agent's command line: what to do (run, doctor, --help, --version) and its settings, each flag
// falling back to an environment variable (systemd passes them from the env file).
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { GpuInfo } from "../protocol/messages.ts";
import { parseGpuSpec } from "./gpus/synthetic-gpus.ts";
import { DEFAULT_NETWORK_POOL, parsePool } from "./runtime/subnet-pool.ts";

export interface AgentConfig {
  /** WebSocket URL of the server's agent endpoint (`<server>/agent/v1/connect`). */
  connectUrl: string;
  token: string;
  runtime: "docker" | "local";
  /** Synthetic GPUs from `--gpus`, or null to discover them with nvidia-smi. */
  gpus: GpuInfo[] | null;
  /** Reported with synthetic GPUs; real hosts report what nvidia-smi says. */
  syntheticVersions: { driver: string; cuda: string };
  stateDir: string;
  cacheDir: string;
  /** Addresses the docker runtime carves instance networks from; the firewall rules name it. */
  networkPool: string;
  /** doctor's throwaway probe instances run it (busybox: sh, nc, httpd). */
  probeImage: string;
  /** Whether the docker runtime takes instances where the engine cannot enforce disk_gb (--unenforced-disk accept). */
  acceptUnenforcedDisk: boolean;
  /** Local runtime only: the dev containers' model-load delay and simulated pull time. */
  readyDelayMs: number;
  pullMs: number;
}

export type CommandLine =
  | { ok: true; command: "help" | "version" }
  | { ok: true; command: "run" | "doctor"; config: AgentConfig }
  | { ok: false; error: string };

/** A real pair (driver 580.126.09 ships CUDA 13.0), newer than every template's min_cuda, so the dev stack places anything. */
export const SYNTHETIC_DRIVER_VERSION = "580.126.09";
export const SYNTHETIC_CUDA_VERSION = "13.0";
/** Any image with busybox's sh, nc and httpd will do for doctor's probe; --probe-image names another (a mirror's). */
export const DEFAULT_PROBE_IMAGE = "docker.io/library/busybox:1.37";

export const USAGE = `gpu-rental-agent: runs customers' containers on this machine's GPUs for the GPU rental service.

Usage:
  gpu-rental-agent [flags]         connect to the server and run containers (what the systemd unit runs)
  gpu-rental-agent doctor [flags]  check this host, one line per check; exits 1 when something needed is missing
  gpu-rental-agent --help | --version

Flags (each falls back to the environment variable beside it):
  --server URL            AGENT_SERVER          the service's base URL, e.g. https://api.example.com (required; http:// only to loopback)
  --token TOKEN           AGENT_TOKEN           this machine's agent token gma_... (required; keep it in the env file)
  --runtime docker|local  AGENT_RUNTIME         docker (default): containers on the Docker engine; local: dev stand-ins
  --state-dir DIR         AGENT_STATE_DIR       the agent's state (default ./.agent-state)
  --cache-dir DIR         AGENT_CACHE_DIR       shared Hugging Face cache, read-only in containers (default STATE_DIR/hf-cache)
  --network-pool CIDR     AGENT_NETWORK_POOL    addresses for per-instance networks (default ${DEFAULT_NETWORK_POOL})
  --unenforced-disk accept|refuse
                          AGENT_UNENFORCED_DISK where the engine cannot enforce disk_gb (overlay2 not on xfs with pquota):
                                                refuse (default) takes no instances, the host shows as degraded; accept takes
                                                them, each instance saying its limit is not enforced
  --probe-image IMAGE     AGENT_PROBE_IMAGE     doctor: the image of its throwaway probe instances (default ${DEFAULT_PROBE_IMAGE})
  --gpus MODEL:N[,...]    AGENT_GPUS            synthetic GPUs instead of nvidia-smi's, e.g. rtx4090:8 (required with local)
  --cuda-version X.Y      AGENT_CUDA_VERSION    CUDA version reported with synthetic GPUs (default ${SYNTHETIC_CUDA_VERSION})
  --driver-version V      AGENT_DRIVER_VERSION  driver version reported with synthetic GPUs (default ${SYNTHETIC_DRIVER_VERSION})

Environment only:
  DOCKER_HOST             the Docker engine (default unix:///var/run/docker.sock)
  DEV_READY_DELAY_MS      local runtime: how long a dev container's ports refuse connections (default 3000)
  DEV_PULL_MS             local runtime: simulated image pull time (default 400)
`;

export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv): CommandLine {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      options: {
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
        server: { type: "string" },
        token: { type: "string" },
        runtime: { type: "string" },
        gpus: { type: "string" },
        "cuda-version": { type: "string" },
        "driver-version": { type: "string" },
        "state-dir": { type: "string" },
        "cache-dir": { type: "string" },
        "network-pool": { type: "string" },
        "probe-image": { type: "string" },
        "unenforced-disk": { type: "string" },
      },
      strict: true,
      allowPositionals: true,
    }));
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  if (values.help) return { ok: true, command: "help" };
  if (values.version) return { ok: true, command: "version" };
  const [command, ...extra] = positionals;
  if (extra.length > 0 || (command !== undefined && command !== "doctor")) {
    return { ok: false, error: `unknown command "${positionals.join(" ")}"; the only command is doctor` };
  }
  const config = parseConfig(values as Record<string, string | undefined>, env);
  return "error" in config ? { ok: false, error: config.error } : { ok: true, command: command ?? "run", config };
}

function parseConfig(values: Record<string, string | undefined>, env: NodeJS.ProcessEnv): AgentConfig | { error: string } {
  const server = values.server ?? env.AGENT_SERVER;
  const token = values.token ?? env.AGENT_TOKEN;
  const runtime = values.runtime ?? env.AGENT_RUNTIME ?? "docker";
  const gpuSpec = values.gpus ?? env.AGENT_GPUS ?? null;
  if (!server) return { error: "--server (or AGENT_SERVER) is required" };
  if (!token) return { error: "--token (or AGENT_TOKEN) is required" };
  const connectUrl = connectUrlFor(server);
  if (!connectUrl) return { error: `--server must be an http(s) or ws(s) URL, got "${server}"` };
  if (connectUrl.startsWith("ws:") && !isLoopback(new URL(connectUrl).hostname)) {
    return { error: `--server ${server} would send the agent token unencrypted: use https:// (http:// and ws:// are for a server on this machine's loopback only)` };
  }
  if (runtime !== "docker" && runtime !== "local") return { error: `--runtime must be docker or local, got "${runtime}"` };
  if (runtime === "local" && !gpuSpec) return { error: "--gpus (or AGENT_GPUS) is required with --runtime local, e.g. --gpus rtx4090:8" };
  const gpus = gpuSpec === null ? null : parseGpuSpec(gpuSpec);
  if (gpus !== null && "error" in gpus) return { error: gpus.error };
  const cuda = values["cuda-version"] ?? env.AGENT_CUDA_VERSION ?? SYNTHETIC_CUDA_VERSION;
  const driver = values["driver-version"] ?? env.AGENT_DRIVER_VERSION ?? SYNTHETIC_DRIVER_VERSION;
  if (!/^\d+\.\d+$/.test(cuda)) return { error: `--cuda-version must look like 12.4, got "${cuda}"` };
  if (!/^\d+(\.\d+)+$/.test(driver)) return { error: `--driver-version must look like 550.54.15, got "${driver}"` };
  const networkPool = values["network-pool"] ?? env.AGENT_NETWORK_POOL ?? DEFAULT_NETWORK_POOL;
  const pool = parsePool(networkPool);
  if ("error" in pool) return { error: `--network-pool: ${pool.error}` };
  const readyDelayMs = nonNegative(env.DEV_READY_DELAY_MS, 3000);
  const pullMs = nonNegative(env.DEV_PULL_MS, 400);
  if (readyDelayMs === null || pullMs === null) return { error: "DEV_READY_DELAY_MS and DEV_PULL_MS must be non-negative integers" };
  const stateDir = resolve(values["state-dir"] ?? env.AGENT_STATE_DIR ?? "./.agent-state");
  const cacheDir = resolve(values["cache-dir"] ?? env.AGENT_CACHE_DIR ?? `${stateDir}/hf-cache`);
  const probeImage = values["probe-image"] ?? env.AGENT_PROBE_IMAGE ?? DEFAULT_PROBE_IMAGE;
  const unenforcedDisk = values["unenforced-disk"] ?? env.AGENT_UNENFORCED_DISK ?? "refuse";
  if (unenforcedDisk !== "accept" && unenforcedDisk !== "refuse") return { error: `--unenforced-disk must be accept or refuse, got "${unenforcedDisk}"` };
  return {
    connectUrl, token, runtime, gpus, syntheticVersions: { driver, cuda }, stateDir, cacheDir, networkPool, probeImage,
    acceptUnenforcedDisk: unenforcedDisk === "accept", readyDelayMs, pullMs,
  };
}

function connectUrlFor(server: string): string | null {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return null;
  }
  const schemes: Record<string, string> = { "http:": "ws:", "https:": "wss:", "ws:": "ws:", "wss:": "wss:" };
  const scheme = schemes[url.protocol];
  if (!scheme) return null;
  url.protocol = scheme;
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/agent/v1/connect`;
  url.search = "";
  url.hash = "";
  return url.toString();
}

/** The token travels in clear over ws://: only to this machine itself (`npm run dev`, the tests). */
function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost") || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

function nonNegative(text: string | undefined, fallback: number): number | null {
  if (text === undefined || text === "") return fallback;
  return /^\d+$/.test(text) ? Number(text) : null;
}
