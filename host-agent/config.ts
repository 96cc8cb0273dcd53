// The agent's settings from its command line, falling back to environment variables.
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { GpuInfo } from "../protocol/messages.ts";
import { parseGpuSpec } from "./gpus/synthetic-gpus.ts";

export interface AgentConfig {
  /** WebSocket URL of the server's agent endpoint (`<server>/agent/v1/connect`). */
  connectUrl: string;
  token: string;
  runtime: "docker" | "local";
  /** Synthetic GPUs from `--gpus`, or null to discover them with nvidia-smi. */
  gpus: GpuInfo[] | null;
  stateDir: string;
  cacheDir: string;
  /** Local runtime only: the dev containers' model-load delay and simulated pull time. */
  readyDelayMs: number;
  pullMs: number;
}

export const USAGE =
  "usage: node host-agent/main.ts --server URL --token TOKEN [--runtime docker|local] [--gpus rtx4090:8] [--state-dir DIR] [--cache-dir DIR]\n" +
  "       (or env AGENT_SERVER, AGENT_TOKEN, AGENT_RUNTIME, AGENT_GPUS, AGENT_STATE_DIR, AGENT_CACHE_DIR)";

export function parseConfig(argv: string[], env: NodeJS.ProcessEnv): { ok: true; config: AgentConfig } | { ok: false; error: string } {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        server: { type: "string" },
        token: { type: "string" },
        runtime: { type: "string" },
        gpus: { type: "string" },
        "state-dir": { type: "string" },
        "cache-dir": { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  const server = values.server ?? env.AGENT_SERVER;
  const token = values.token ?? env.AGENT_TOKEN;
  const runtime = values.runtime ?? env.AGENT_RUNTIME ?? "docker";
  const gpuSpec = values.gpus ?? env.AGENT_GPUS ?? null;
  if (!server) return { ok: false, error: "--server (or AGENT_SERVER) is required" };
  if (!token) return { ok: false, error: "--token (or AGENT_TOKEN) is required" };
  const connectUrl = connectUrlFor(server);
  if (!connectUrl) return { ok: false, error: `--server must be an http(s) or ws(s) URL, got "${server}"` };
  if (runtime !== "docker" && runtime !== "local") return { ok: false, error: `--runtime must be docker or local, got "${runtime}"` };
  if (runtime === "local" && !gpuSpec) return { ok: false, error: "--gpus (or AGENT_GPUS) is required with --runtime local, e.g. --gpus rtx4090:8" };
  const gpus = gpuSpec === null ? null : parseGpuSpec(gpuSpec);
  if (gpus !== null && "error" in gpus) return { ok: false, error: gpus.error };
  const readyDelayMs = nonNegative(env.DEV_READY_DELAY_MS, 3000);
  const pullMs = nonNegative(env.DEV_PULL_MS, 400);
  if (readyDelayMs === null || pullMs === null) return { ok: false, error: "DEV_READY_DELAY_MS and DEV_PULL_MS must be non-negative integers" };
  const stateDir = resolve(values["state-dir"] ?? env.AGENT_STATE_DIR ?? "./.agent-state");
  const cacheDir = resolve(values["cache-dir"] ?? env.AGENT_CACHE_DIR ?? `${stateDir}/hf-cache`);
  return { ok: true, config: { connectUrl, token, runtime, gpus, stateDir, cacheDir, readyDelayMs, pullMs } };
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

function nonNegative(text: string | undefined, fallback: number): number | null {
  if (text === undefined || text === "") return fallback;
  return /^\d+$/.test(text) ? Number(text) : null;
}
