// `npm run bench -- --soak [--minutes N]`: the local stack under a mixed load for N minutes (API
// churn, reads and keys; proxied downloads, uploads, SSE and WebSocket) from several concurrent
// clients, with an agent restarted every few minutes; then the report: errors by kind (expected when
// a restart cut them), RSS a sample a minute, and the end checks (ledgers, billing, open streams).
import { setTimeout as sleep } from "node:timers/promises";
import { createAccount } from "../http/api-client.ts";
import { machineInfo } from "../machine-info.ts";
import { processRssBytes } from "../stack/procfs.ts";
import { ADMIN_TOKEN, CONTAINER_PORT, startBenchStack, type BenchStack } from "../stack/bench-stack.ts";
import { AgentRestarts, restartPlan } from "./agent-restarts.ts";
import { billingChecks, destroyAll, openStreamsCheck, type SoakAccount } from "./end-checks.ts";
import { OpRecorder } from "./op-recorder.ts";
import {
  churnClient, downloadClient, keysClient, readsClient, sseClient, uploadClient, webSocketClient, type SoakClient, type SoakTarget,
} from "./soak-clients.ts";
import { summarizeOps, unexplainedFailures } from "./soak-outcomes.ts";
import { renderSoakReport, soakPassed, type RssSample, type SoakResult } from "./soak-report.ts";

const SAMPLE_EVERY_MS = 60_000;
const MB = 1024 ** 2;

export interface SoakOptions {
  minutes: number;
  echo: boolean;
  log(line: string): void;
}

/** Runs the soak and prints its report; true when it passed. The stack is stopped whatever happens. */
export async function runSoak({ minutes, echo, log }: SoakOptions): Promise<boolean> {
  const machine = machineInfo();
  let bench: BenchStack | null = null;
  const stopStack = () => bench?.stop().catch(() => undefined);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      log(`${signal}: stopping the stack`);
      void Promise.resolve(stopStack()).then(() => process.exit(130));
    });
  }
  try {
    log(`soak: ${minutes} min; starting the local stack (wrangler dev + 2 agents)…`);
    bench = await startBenchStack({ echo, inspectAgents: false });
    const { stack } = bench;
    const target: SoakTarget = { baseUrl: bench.baseUrl, key: bench.key, proxyInstanceId: bench.instanceId, proxyPort: CONTAINER_PORT };
    const churners = await Promise.all([0, 1, 2].map(async (i) => ({ name: `churn-${i + 1}`, ...(await createAccount(bench!.baseUrl, ADMIN_TOKEN)) })));
    const accounts: SoakAccount[] = [{ name: "dev", key: bench.key }, ...churners];
    const recorder = new OpRecorder();
    const clients: SoakClient[] = [
      churnClient(target, recorder, churners[0]!, "rtx4090", "dev-1"),
      churnClient(target, recorder, churners[1]!, "rtx4090", "dev-1"),
      churnClient(target, recorder, churners[2]!, "h100-80gb", "dev-2"),
      readsClient(target, recorder),
      keysClient(target, recorder),
      downloadClient(target, recorder),
      downloadClient(target, recorder),
      uploadClient(target, recorder),
      sseClient(target, recorder),
      webSocketClient(target, recorder),
    ];
    const serves = async (name: string) => name !== "dev-1"
      || (await fetch(`${target.baseUrl}/v1/instances/${target.proxyInstanceId}/proxy/${CONTAINER_PORT}/health`, { headers: { authorization: `Bearer ${target.key}` } })
        .then((r) => r.status === 200, () => false));
    const restarts = new AgentRestarts(stack, serves);

    const durationMs = minutes * 60_000;
    const startedMs = Date.now();
    const rss: RssSample[] = [sampleRss(bench, 0)];
    let stopping = false;
    log(`${clients.length} clients running; agent restarts at ${restartPlan(durationMs).map((r) => `${Math.round(r.atMs / 1000)} s (${r.machine} ${r.how})`).join(", ") || "none"}`);
    const loops = clients.map((client) => client.run(() => stopping));
    const restarting: Promise<void>[] = [];
    const plan = restartPlan(durationMs);
    let nextSampleMs = SAMPLE_EVERY_MS;
    for (;;) {
      const elapsed = Date.now() - startedMs;
      if (elapsed >= durationMs) break;
      if (elapsed >= nextSampleMs) {
        rss.push(sampleRss(bench, elapsed));
        log(`${Math.round(elapsed / 1000)} s: ${recorder.records.length} operations, ${recorder.records.filter((r) => r.error).length} errors`);
        nextSampleMs += SAMPLE_EVERY_MS;
      }
      const due = plan[0];
      if (due && elapsed >= due.atMs) {
        plan.shift();
        log(`restarting ${due.machine}'s agent (${due.how})`);
        restarting.push(restarts.restart(due.machine, due.how));
      }
      await sleep(Math.max(10, Math.min(nextSampleMs, due?.atMs ?? Number.POSITIVE_INFINITY, durationMs) - elapsed));
    }
    stopping = true;
    log("time is up: letting every client finish its operation");
    await Promise.all([...loops, ...restarting]);
    await stack.waitForMachines({ "dev-1": true, "dev-2": true }, 60_000);

    const checks = [await openStreamsCheck(target.baseUrl, Object.fromEntries(Object.entries(stack.setup.machines).map(([name, m]) => [name, m.id])))];
    await destroyAll(target.baseUrl, accounts);
    checks.push(...(await billingChecks(target.baseUrl, accounts)));
    rss.push(sampleRss(bench, Date.now() - startedMs));
    const { ops, errors } = summarizeOps(recorder.records, restarts.windows);
    const result: SoakResult = {
      machine,
      minutes,
      durationS: (Date.now() - startedMs) / 1000,
      clients: clients.map((c) => c.description),
      ops,
      errors,
      unexplained: unexplainedFailures(recorder.records, restarts.windows).map((r) => ({
        atS: (r.startMs - startedMs) / 1000, tookS: (r.endMs - r.startMs) / 1000, op: r.op, machine: r.machine, error: r.error!,
        ...(r.detail === undefined ? {} : { detail: r.detail }),
      })),
      restarts: restarts.windows.map((w) => ({
        atS: (w.startMs - startedMs) / 1000, machine: w.machine, how: w.how, backAfterS: w.endMs === null ? null : (w.endMs - w.startMs) / 1000,
      })),
      rss,
      checks,
    };
    process.stdout.write(`${renderSoakReport(result)}\n`);
    return soakPassed(result);
  } catch (error) {
    log(`soak failed: ${(error as Error).stack ?? String(error)}`);
    return false;
  } finally {
    await stopStack();
  }
}

/** RSS of each workerd process (wrangler's entry proxy, the Worker's own) and of each agent process (its containers apart). */
function sampleRss(bench: BenchStack, elapsedMs: number): RssSample {
  const { workerdFront, workerdWorker } = bench.pids();
  const mb: Record<string, number> = {
    "workerd worker": workerdWorker === null ? 0 : processRssBytes(workerdWorker) / MB,
    "workerd front": workerdFront === null ? 0 : processRssBytes(workerdFront) / MB,
  };
  for (const [name, agent] of bench.stack.agents) mb[`${name} agent`] = processRssBytes(agent.process.pid!) / MB;
  return { atS: elapsedMs / 1000, mb };
}
