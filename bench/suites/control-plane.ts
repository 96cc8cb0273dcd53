// The control API: latency of the common GETs against the trivial Worker route (`/bench/noop`), how
// long a launch takes to reach `running` (and to answer on its port), and 20 launches at once from
// 20 accounts competing for the machines' GPUs.
import type { Figure, Section } from "../results-model.ts";
import { ADMIN_TOKEN, CONTAINER_PORT, READY_DELAY_MS } from "../stack/bench-stack.ts";
import { percentile } from "../stats.ts";
import { interleavedGets } from "./interleaved.ts";
import type { SuiteContext } from "./suite-context.ts";
import { concurrentLaunches } from "./concurrent-launches.ts";
import { timeLaunch, type LaunchTiming } from "./launch-timing.ts";

const WARM_UP_REQUESTS = 20;

export async function controlPlaneSuite(ctx: SuiteContext): Promise<Section> {
  const { baseUrl, key, instanceId } = ctx.stack;
  const notes: string[] = [];
  ctx.log("control plane: GET latency");
  const auth = { authorization: `Bearer ${key}` };
  // With a ladder for the read path: the API's Worker side alone (refused by its middleware, no object),
  // then the AccountDO's credential check (refused there: RPC, SHA-256, key scan, nothing written).
  const wrongKey = { authorization: `Bearer ${key.slice(0, key.lastIndexOf("_") + 1)}${"a".repeat(32)}` };
  const [noop, me, instance, gpus, meNoCredential, meWrongKey] = await interleavedGets([
    { url: `${baseUrl}/bench/noop`, headers: {}, status: 204 },
    { url: `${baseUrl}/v1/me`, headers: auth, status: 200 },
    { url: `${baseUrl}/v1/instances/${instanceId}`, headers: auth, status: 200 },
    { url: `${baseUrl}/v1/gpus`, headers: auth, status: 200 },
    { url: `${baseUrl}/v1/me`, headers: {}, status: 401 },
    { url: `${baseUrl}/v1/me`, headers: wrongKey, status: 401 },
  ], WARM_UP_REQUESTS, ctx.config.controlRequests);
  const gets = { me: me!, instance: instance!, gpus: gpus! };
  const ladder = { me_no_credential: meNoCredential!, me_wrong_key: meWrongKey! };
  const labels = {
    me: "GET /v1/me", instance: "GET /v1/instances/{id}", gpus: "GET /v1/gpus",
    me_no_credential: "GET /v1/me, no credential → 401 (Worker + API middleware)", me_wrong_key: "GET /v1/me, wrong key → 401 (+ AccountDO: RPC, SHA-256, key scan)",
  };
  const timed = { ...gets, ...ladder };
  const figures: Figure[] = (["me", "instance", "gpus", "me_no_credential", "me_wrong_key"] as const).flatMap((name) => [
    { id: `control.${name}.p50`, label: `${labels[name]} p50`, unit: "ms", better: "lower" as const, ours: timed[name].p50, baselines: { noop: noop!.p50 } },
    { id: `control.${name}.p99`, label: `${labels[name]} p99`, unit: "ms", better: "lower" as const, ours: timed[name].p99, baselines: { noop: noop!.p99 } },
  ]);
  notes.push(`${ctx.config.controlRequests} sequential requests to each, interleaved (one to each in turn, each on its own kept-alive connection) after ${WARM_UP_REQUESTS} warm-up rounds; baseline: GET /bench/noop (a Worker route answering 204), p50 ${noop!.p50.toFixed(2)} ms, p99 ${noop!.p99.toFixed(2)} ms`);

  ctx.log(`control plane: ${ctx.config.launchRuns} launches, one at a time`);
  const launches: LaunchTiming[] = [];
  for (let run = 0; run < ctx.config.launchRuns; run++) launches.push(await timeLaunch(baseUrl, key, CONTAINER_PORT));
  const p50 = (pick: (l: LaunchTiming) => number) => percentile(launches.map(pick), 50);
  figures.push(
    { id: "control.launch.created", label: "POST /v1/instances → 201 p50", unit: "ms", better: "lower", ours: p50((l) => l.createdMs), baselines: {} },
    { id: "control.launch.running", label: "POST → status running p50", unit: "ms", better: "lower", ours: p50((l) => l.runningMs), baselines: {} },
    { id: "control.launch.ready", label: "POST → port answers p50", unit: "ms", better: "lower", ours: p50((l) => l.readyMs), baselines: {} },
    { id: "control.launch.ready_net", label: `POST → port answers − ${READY_DELAY_MS} ms model load p50`, unit: "ms", better: "lower", ours: p50((l) => l.readyMs) - READY_DELAY_MS, baselines: {} },
  );
  notes.push(
    `launch: vllm on 1 × rtx4090, polled every 10 ms; the local runtime reports running when the container process starts, before its ${READY_DELAY_MS} ms model-load delay (DEV_READY_DELAY_MS) — so "running" is raw, and "port answers" (GET /health through the proxy → 200) includes that delay, shown also without it; the image pull is simulated (DEV_PULL_MS 100)`,
  );

  ctx.log(`control plane: ${ctx.config.concurrentLaunches} launches at once from as many accounts`);
  const burst = await concurrentLaunches(baseUrl, ADMIN_TOKEN, ctx.config.concurrentLaunches);
  figures.push(
    { id: "control.concurrent.post.p50", label: `${burst.requested} launches at once: answer p50`, unit: "ms", better: "lower", ours: burst.answers.p50, baselines: {} },
    { id: "control.concurrent.post.p99", label: `${burst.requested} launches at once: answer p99`, unit: "ms", better: "lower", ours: burst.answers.p99, baselines: {} },
    { id: "control.concurrent.all_running", label: `${burst.requested} launches at once: all placed running`, unit: "ms", better: "lower", ours: burst.allRunningMs, baselines: {} },
    { id: "control.concurrent.created", label: `${burst.requested} launches at once: created`, unit: "count", better: "higher", ours: burst.created, baselines: {} },
    { id: "control.concurrent.no_capacity", label: `${burst.requested} launches at once: 409 no_capacity`, unit: "count", better: "lower", ours: burst.noCapacity, baselines: {} },
  );
  notes.push(burst.summary);
  return { id: "control", title: "Control plane", baselineKeys: ["noop"], figures, notes };
}
