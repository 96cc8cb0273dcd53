// The agent's command line: what to do (run, doctor, --help, --version) and its settings, each flag
// falling back to an environment variable (systemd passes them from the env file). The dev agent
// (dev/dev-config.ts) reads the same settings and adds its stand-ins' flags to them.
import { resolve } from "node:path";
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { DEFAULT_STAGING_GB } from "./files/upload-staging.ts";
import { DEFAULT_IMAGE_KEEP_HOURS } from "./runtime/image-pruning.ts";
import { DEFAULT_NETWORK_POOL, parsePool } from "./runtime/subnet-pool.ts";
import { DEFAULT_VOLUME_CACHE_GB } from "./volumes/chunk-cache.ts";

export interface AgentConfig {
  /** WebSocket URL of the server's agent endpoint (`<server>/agent/v1/connect`). */
  connectUrl: string;
  token: string;
  stateDir: string;
  cacheDir: string;
  /** Addresses the docker runtime carves instance networks from; the firewall rules name it. */
  networkPool: string;
  /** How often a metrics sample is sent (AGENT_METRICS_INTERVAL_MS; tests sample faster than production's 10 s). */
  metricsIntervalMs: number;
  /** doctor's throwaway probe instances run it (busybox: sh, nc, httpd). */
  probeImage: string;
  /** Whether the docker runtime takes instances where the engine cannot enforce disk_gb (--unenforced-disk accept). */
  acceptUnenforcedDisk: boolean;
  /** What all instances' resumable uploads may stage together on this host, in bytes (--upload-staging-gb). */
  uploadStagingBytes: number;
  /** How long a tenant's image no container uses stays on the host before it is removed (--image-keep-hours). */
  imageKeepMs: number;
  /** What volumes' chunks cached on this host may take, in bytes (--volume-cache-gb). */
  volumeCacheBytes: number;
  /** How often a running instance's read-write volumes are saved (--volume-save-minutes). */
  volumeSaveMs: number;
}

export type CommandLine<Config> =
  | { ok: true; command: "help" | "version" }
  | { ok: true; command: "run" | "doctor"; config: Config }
  | { ok: false; error: string };

/** Flag values by name, as parseArgs reads them. */
export type FlagValues = Record<string, string | undefined>;

/** Any image with busybox's sh, nc and httpd will do for doctor's probe; --probe-image names another (a mirror's). */
export const DEFAULT_PROBE_IMAGE = "docker.io/library/busybox:1.37";

/** How often a running instance's read-write volumes are saved unless said otherwise. */
export const DEFAULT_VOLUME_SAVE_MINUTES = 15;

export const USAGE = `gpu-rental-agent: runs customers' containers on this machine's GPUs for the GPU rental service.

Usage:
  gpu-rental-agent [flags]         connect to the server and run containers (what the systemd unit runs)
  gpu-rental-agent doctor [flags]  check this host, one line per check; exits 1 when something needed is missing
  gpu-rental-agent --help | --version

Flags (each falls back to the environment variable beside it):
  --server URL            AGENT_SERVER          the service's base URL, e.g. https://api.example.com (required)
  --token TOKEN           AGENT_TOKEN           this machine's agent token gma_... (required; keep it in the env file)
  --runtime docker        AGENT_RUNTIME         containers on the Docker engine, the only runtime (default docker)
  --state-dir DIR         AGENT_STATE_DIR       the agent's state (default ./.agent-state)
  --cache-dir DIR         AGENT_CACHE_DIR       shared Hugging Face cache, read-only in containers (default STATE_DIR/hf-cache)
  --network-pool CIDR     AGENT_NETWORK_POOL    addresses for per-instance networks (default ${DEFAULT_NETWORK_POOL})
  --unenforced-disk accept|refuse
                          AGENT_UNENFORCED_DISK where the engine cannot enforce disk_gb (overlay2 not on xfs with pquota):
                                                refuse (default) takes no instances, the host shows as degraded; accept takes
                                                them, each instance saying its limit is not enforced
  --probe-image IMAGE     AGENT_PROBE_IMAGE     doctor: the image of its throwaway probe instances (default ${DEFAULT_PROBE_IMAGE})
  --upload-staging-gb GB
                          AGENT_UPLOAD_STAGING_GB
                                                what all instances' resumable uploads may stage together on this host (default
                                                ${DEFAULT_STAGING_GB}); a part is also refused while STATE_DIR's disk has under 4 GiB free
  --image-keep-hours H    AGENT_IMAGE_KEEP_HOURS
                                                a custom image (a tenant's) that no container has used for this long is removed
                                                (default ${DEFAULT_IMAGE_KEEP_HOURS}; 0.5 is half an hour)
  --volume-cache-gb GB    AGENT_VOLUME_CACHE_GB
                                                what volumes' chunks cached on this host may take (default ${DEFAULT_VOLUME_CACHE_GB}); the
                                                least recently used go first
  --volume-save-minutes M AGENT_VOLUME_SAVE_MINUTES
                                                how often a running instance's read-write volumes are saved, besides on
                                                stop, destroy and POST /v1/volumes/{id}/save (default ${DEFAULT_VOLUME_SAVE_MINUTES})

Environment only:
  DOCKER_HOST             the Docker engine (default unix:///var/run/docker.sock)
  AGENT_METRICS_INTERVAL_MS  how often GPU and container usage is sampled and sent (default 10000, at least 1000)
`;

/** The flags every agent reads; the dev agent adds its own to them. */
export const AGENT_FLAGS = {
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
  server: { type: "string" },
  token: { type: "string" },
  runtime: { type: "string" },
  "state-dir": { type: "string" },
  "cache-dir": { type: "string" },
  "network-pool": { type: "string" },
  "probe-image": { type: "string" },
  "unenforced-disk": { type: "string" },
  "upload-staging-gb": { type: "string" },
  "image-keep-hours": { type: "string" },
  "volume-cache-gb": { type: "string" },
  "volume-save-minutes": { type: "string" },
} as const satisfies ParseArgsOptionsConfig;

export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv): CommandLine<AgentConfig> {
  return readCommandLine(argv, AGENT_FLAGS, (values) => {
    const settings = parseSettings(values, env);
    if ("error" in settings) return settings;
    const runtime = values.runtime ?? env.AGENT_RUNTIME ?? "docker";
    if (runtime !== "docker") return { error: `--runtime must be docker, got "${runtime}" (the local runtime is the dev agent's: npm run dev)` };
    return settings;
  });
}

/** Reads `argv` against `flags`: the command, or --help and --version (which need no settings), or the config `configOf` makes of the values. */
export function readCommandLine<Config extends object>(
  argv: string[], flags: ParseArgsOptionsConfig, configOf: (values: FlagValues) => Config | { error: string },
): CommandLine<Config> {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    // No flag is `multiple`: each value is one string or boolean.
    ({ values, positionals } = parseArgs({ args: argv, options: flags, strict: true, allowPositionals: true }) as { values: typeof values; positionals: string[] });
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  if (values.help) return { ok: true, command: "help" };
  if (values.version) return { ok: true, command: "version" };
  const [command, ...extra] = positionals;
  if (extra.length > 0 || (command !== undefined && command !== "doctor")) {
    return { ok: false, error: `unknown command "${positionals.join(" ")}"; the only command is doctor` };
  }
  const config = configOf(values as FlagValues);
  return "error" in config ? { ok: false, error: config.error } : { ok: true, command: command ?? "run", config };
}

/** The settings every agent has, from the flags and then the environment. */
export function parseSettings(values: FlagValues, env: NodeJS.ProcessEnv): AgentConfig | { error: string } {
  const server = values.server ?? env.AGENT_SERVER;
  const token = values.token ?? env.AGENT_TOKEN;
  if (!server) return { error: "--server (or AGENT_SERVER) is required" };
  if (!token) return { error: "--token (or AGENT_TOKEN) is required" };
  const connectUrl = connectUrlFor(server);
  if (!connectUrl) return { error: `--server must be an http(s) or ws(s) URL, got "${server}"` };
  if (connectUrl.startsWith("ws:") && !isLoopback(new URL(connectUrl).hostname)) {
    return { error: `--server ${server} would send the agent token unencrypted: use https:// (http:// and ws:// are for a server on this machine's loopback only)` };
  }
  const networkPool = values["network-pool"] ?? env.AGENT_NETWORK_POOL ?? DEFAULT_NETWORK_POOL;
  const pool = parsePool(networkPool);
  if ("error" in pool) return { error: `--network-pool: ${pool.error}` };
  const metricsIntervalMs = nonNegative(env.AGENT_METRICS_INTERVAL_MS, 10_000);
  if (metricsIntervalMs === null || metricsIntervalMs < 1_000) return { error: "AGENT_METRICS_INTERVAL_MS must be an integer of at least 1000" };
  const stateDir = resolve(values["state-dir"] ?? env.AGENT_STATE_DIR ?? "./.agent-state");
  const cacheDir = resolve(values["cache-dir"] ?? env.AGENT_CACHE_DIR ?? `${stateDir}/hf-cache`);
  const probeImage = values["probe-image"] ?? env.AGENT_PROBE_IMAGE ?? DEFAULT_PROBE_IMAGE;
  const unenforcedDisk = values["unenforced-disk"] ?? env.AGENT_UNENFORCED_DISK ?? "refuse";
  if (unenforcedDisk !== "accept" && unenforcedDisk !== "refuse") return { error: `--unenforced-disk must be accept or refuse, got "${unenforcedDisk}"` };
  const stagingGb = positiveNumber(values["upload-staging-gb"] ?? env.AGENT_UPLOAD_STAGING_GB, DEFAULT_STAGING_GB);
  if (stagingGb === null) return { error: "--upload-staging-gb (or AGENT_UPLOAD_STAGING_GB) must be a number of GB above 0, e.g. 100 or 0.5" };
  const keepHours = positiveNumber(values["image-keep-hours"] ?? env.AGENT_IMAGE_KEEP_HOURS, DEFAULT_IMAGE_KEEP_HOURS);
  if (keepHours === null) return { error: "--image-keep-hours (or AGENT_IMAGE_KEEP_HOURS) must be a number of hours above 0, e.g. 24 or 0.5" };
  const volumeCacheGb = positiveNumber(values["volume-cache-gb"] ?? env.AGENT_VOLUME_CACHE_GB, DEFAULT_VOLUME_CACHE_GB);
  if (volumeCacheGb === null) return { error: "--volume-cache-gb (or AGENT_VOLUME_CACHE_GB) must be a number of GB above 0, e.g. 50 or 0.5" };
  const saveMinutes = positiveNumber(values["volume-save-minutes"] ?? env.AGENT_VOLUME_SAVE_MINUTES, DEFAULT_VOLUME_SAVE_MINUTES);
  if (saveMinutes === null) return { error: "--volume-save-minutes (or AGENT_VOLUME_SAVE_MINUTES) must be a number of minutes above 0, e.g. 15 or 0.5" };
  return {
    connectUrl, token, stateDir, cacheDir, networkPool, metricsIntervalMs, probeImage, acceptUnenforcedDisk: unenforcedDisk === "accept",
    uploadStagingBytes: Math.floor(stagingGb * 2 ** 30), imageKeepMs: Math.round(keepHours * 3_600_000),
    volumeCacheBytes: Math.floor(volumeCacheGb * 2 ** 30), volumeSaveMs: Math.round(saveMinutes * 60_000),
  };
}

/** The token travels in clear over ws://: only to this machine itself (`npm run dev`, the tests). */
function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost") || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
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

/** A decimal number above 0 (`24`, `0.5`), `fallback` when unset, null when it is something else. */
function positiveNumber(text: string | undefined, fallback: number): number | null {
  if (text === undefined || text === "") return fallback;
  return /^\d+(\.\d+)?$/.test(text) && Number(text) > 0 ? Number(text) : null;
}

/** An integer of at least 0 from a variable, `fallback` when unset, null when it is something else. */
export function nonNegative(text: string | undefined, fallback: number): number | null {
  if (text === undefined || text === "") return fallback;
  return /^\d+$/.test(text) ? Number(text) : null;
}
