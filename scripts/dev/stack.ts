// The whole service on one machine: `wrangler dev` (the Worker, its Durable Objects and the
// dashboard's files), the idempotent bootstrap, and one real host agent per dev machine on the
// local runtime. Used by `npm run dev`, the end-to-end tests and the benchmarks.
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { AGENT_NODE_FLAGS } from "../../host-agent/node-flags.ts";
import { bootstrap, DEV_MACHINES, instanceTokenSecret, type Bootstrap } from "./bootstrap.ts";
import { buildDashboardIfMissing } from "./dashboard.ts";
import { localR2Credentials, localR2Endpoint } from "./local-r2.ts";
import { PROJECT_NODE, startChild, type Child } from "./processes.ts";
import { startWranglerDev } from "./wrangler-dev.ts";

const ROOT = resolve(import.meta.dirname, "../..");

export interface StackOptions {
  port: number;
  stateDir: string;
  adminToken: string;
  /** Start from empty state. */
  fresh?: boolean;
  /** Extra Worker vars (RATE_LIMIT_RPS, HEARTBEAT_TIMEOUT_MS, ...); APPS_DOMAIN is localhost:`port` unless given. */
  vars?: Record<string, string>;
  /** Env for the agents (DEV_READY_DELAY_MS, ...). */
  agentEnv?: Record<string, string>;
  /** Print children's output prefixed with their name. */
  echo?: boolean;
  /** wrangler's --log-level: "warn" (the default) shows the Worker's warn and error lines, "log" its info lines too. */
  logLevel?: "warn" | "log";
}

export interface Stack {
  baseUrl: string;
  /** Where instance web apps live: `{instance id}-{port}.{appsDomain}`. */
  appsDomain: string;
  stateDir: string;
  adminToken: string;
  setup: Bootstrap;
  worker: Child;
  agents: Map<string, Child>;
  /** Starts the agent of machine `name`; `env` adds to the stack's agent env for this start only. */
  startAgent(name: string, env?: Record<string, string>): Child;
  stopAgent(name: string): Promise<void>;
  waitForMachines(online: Record<string, boolean>, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const stateDir = resolve(options.stateDir);
  await buildDashboardIfMissing();
  if (options.fresh) rmSync(stateDir, { recursive: true, force: true });
  mkdirSync(stateDir, { recursive: true });
  const baseUrl = `http://127.0.0.1:${options.port}`;
  const secret = instanceTokenSecret(stateDir);
  // Instance web apps on http://{instance id}-{port}.localhost:PORT, which browsers resolve to this machine.
  // Volumes' presigned URLs name wrangler dev's own S3 endpoint: the production path, locally.
  // Lines below wrangler's own level would be thrown away unseen; the Worker does not write them (LOG_LEVEL).
  const logLevel = options.logLevel ?? "warn";
  const vars = {
    APPS_DOMAIN: `localhost:${options.port}`, R2_S3_ENDPOINT: localR2Endpoint(baseUrl), LOG_LEVEL: logLevel === "log" ? "info" : "warn",
    ...options.vars,
  };
  const r2 = localR2Credentials(ROOT);
  // wrangler.toml's `secrets.required`: wrangler dev takes them from its environment (a --var is no
  // secret to it, and it would warn that they are missing).
  const secrets = { ADMIN_TOKEN: options.adminToken, INSTANCE_TOKEN_SECRET: secret, R2_ACCESS_KEY_ID: r2.accessKeyId, R2_SECRET_ACCESS_KEY: r2.secretAccessKey };
  const worker = await startWranglerDev("wrangler", {
    config: "wrangler.toml", port: options.port, stateDir, logLevel, vars, env: secrets, echo: options.echo,
  });
  const agents = new Map<string, Child>();
  const stack: Stack = {
    baseUrl,
    appsDomain: vars.APPS_DOMAIN,
    stateDir,
    adminToken: options.adminToken,
    setup: { machines: {}, account: { id: "", key: "", email: "", password: "" }, instance_token_secret: secret },
    worker,
    agents,
    startAgent(name, env = {}) {
      const machine = DEV_MACHINES.find((m) => m.name === name)!;
      const agent = startChild(
        name,
        PROJECT_NODE,
        [
          ...AGENT_NODE_FLAGS, join(ROOT, "host-agent/dev/dev-main.ts"), "--server", baseUrl, "--token", stack.setup.machines[name]!.token,
          "--runtime", "local", "--gpus", machine.gpus, "--state-dir", join(stateDir, "agents", name),
        ],
        { ...process.env, ...options.agentEnv, ...env },
        options.echo ?? false,
      );
      agents.set(name, agent);
      return agent;
    },
    async stopAgent(name) {
      await agents.get(name)?.stop();
      agents.delete(name);
    },
    async waitForMachines(online, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const items = await listMachines(baseUrl, options.adminToken).catch(() => []);
        const ok = Object.entries(online).every(([name, want]) =>
          items.some((m) => m.id === stack.setup.machines[name]?.id && m.online === want));
        if (ok) return;
        if (Date.now() > deadline) throw new Error(`machines not ${JSON.stringify(online)}: ${JSON.stringify(items)}`);
        await sleep(100);
      }
    },
    async stop() {
      await Promise.all([...agents.values()].map((agent) => agent.stop()));
      agents.clear();
      await worker.stop();
    },
  };
  try {
    await waitForWorker(baseUrl, worker);
    stack.setup = await bootstrap(baseUrl, options.adminToken, stateDir, secret);
    for (const { name } of DEV_MACHINES) stack.startAgent(name);
    await stack.waitForMachines(Object.fromEntries(DEV_MACHINES.map((m) => [m.name, true])));
    return stack;
  } catch (error) {
    const logs = [worker, ...agents.values()].map((child) => `--- ${child.name}\n${child.output().slice(-3000)}`).join("\n");
    await stack.stop();
    throw new Error(`the local stack did not start: ${(error as Error).message}\n${logs}`);
  }
}

async function waitForWorker(baseUrl: string, worker: Child): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (worker.process.exitCode !== null) throw new Error(`wrangler exited with ${worker.process.exitCode}`);
    const ok = await fetch(`${baseUrl}/v1/openapi.json`).then((r) => r.ok, () => false);
    if (ok) return;
    await sleep(200);
  }
  throw new Error("wrangler dev did not answer within 60 s");
}

async function listMachines(baseUrl: string, adminToken: string): Promise<{ id: number; online: boolean }[]> {
  const response = await fetch(`${baseUrl}/admin/v1/machines`, { headers: { authorization: `Bearer ${adminToken}` } });
  return ((await response.json()) as { items: { id: number; online: boolean }[] }).items;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
