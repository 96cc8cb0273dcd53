// The local stack as the bench needs it: fresh state in a temp dir, a free port, the bench routes on,
// rate limiting out of the way, one running vllm instance on dev-1, and the ids of every process on
// the path (workerd front and worker, the agent, the container) for CPU and memory sampling.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStack, type Stack } from "../../scripts/dev/stack.ts";
import { freePort, poll } from "../../test/e2e/support/e2e-stack.ts";
import { callApi, LAUNCH_BODY, type InstanceView } from "../http/api-client.ts";
import { findContainer, type ContainerProcess } from "./upstream-port.ts";
import { wranglerWorkerds } from "./wrangler-workerds.ts";

export const ADMIN_TOKEN = "bench-admin-token";
export const CONTAINER_PORT = 8000;
/** The dev container's model-load delay: ports refuse connections this long after `running`. */
export const READY_DELAY_MS = 300;

export interface ProcessIds {
  /** wrangler and its two workerd processes. */
  wranglerGroup: number;
  /** dev-1's agent and its containers. */
  agentGroup: number;
  workerdFront: number | null;
  workerdWorker: number | null;
  agent: number;
  container: number;
}

export interface BenchStack {
  stack: Stack;
  baseUrl: string;
  key: string;
  instanceId: string;
  container: ContainerProcess;
  /** Scanned anew on each call: wrangler restarts its workerd processes when sources change. */
  pids(): ProcessIds;
  stop(): Promise<void>;
}

export async function startBenchStack(options: { echo: boolean; inspectAgents: boolean }): Promise<BenchStack> {
  const stateDir = mkdtempSync(join(tmpdir(), "gpu-rental-bench-"));
  const port = await freePort();
  let stack: Stack;
  try {
    stack = await startStack({
      port, stateDir, adminToken: ADMIN_TOKEN, fresh: true, echo: options.echo,
      vars: { RATE_LIMIT_RPS: "1000000", APPS_RATE_LIMIT_RPS: "1000000", BENCH_ROUTES: "1", HEARTBEAT_TIMEOUT_MS: "15000" },
      agentEnv: {
        DEV_READY_DELAY_MS: String(READY_DELAY_MS), DEV_PULL_MS: "100",
        // For --profile: an inspector on a free port (the containers do not inherit it).
        ...(options.inspectAgents ? { NODE_OPTIONS: "--inspect=127.0.0.1:0" } : {}),
      },
    });
  } catch (error) {
    rmSync(stateDir, { recursive: true, force: true });
    throw error;
  }
  const stop = async () => {
    await stack.stop();
    rmSync(stateDir, { recursive: true, force: true });
  };
  try {
    const key = stack.setup.account.key;
    const instanceId = await launchRunning(stack.baseUrl, key);
    const agentPid = stack.agents.get("dev-1")!.process.pid!;
    const container = await poll(async () => findContainer(join(stateDir, "agents", "dev-1"), instanceId, CONTAINER_PORT), (found) => found !== null);
    const pids = (): ProcessIds => {
      const workerd = wranglerWorkerds(stack.worker.process.pid!, port);
      return {
        wranglerGroup: stack.worker.process.pid!,
        agentGroup: agentPid,
        workerdFront: workerd.front,
        workerdWorker: workerd.worker,
        agent: agentPid,
        container: container!.pid,
      };
    };
    return { stack, baseUrl: stack.baseUrl, key, instanceId, container: container!, pids, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Launches the bench instance and waits until it runs and its port answers through the proxy. */
async function launchRunning(baseUrl: string, key: string): Promise<string> {
  const created = await callApi<InstanceView>(baseUrl, key, "POST", "/v1/instances", LAUNCH_BODY);
  if (created.status !== 201) throw new Error(`launch failed: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.id;
  await poll(() => callApi<InstanceView>(baseUrl, key, "GET", `/v1/instances/${id}`), (r) => r.body.status === "running");
  await poll(
    () => fetch(`${baseUrl}/v1/instances/${id}/proxy/${CONTAINER_PORT}/health`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status),
    (status) => status === 200,
  );
  return id;
}
