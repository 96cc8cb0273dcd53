// `npm run bench`: starts the local stack (fresh state, free port), the minimal server and nginx, measures our proxy and
// control plane against baselines taken in the same run, prints the table and writes
// bench/results/latest.json. All of them are always stopped, also on error and Ctrl-C.
// `--soak` runs the soak instead (bench/soak/soak.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs, USAGE, type SuiteName } from "./args.ts";
import { startMinimalServer, type MinimalServer } from "./baselines/minimal.ts";
import { startNginx, type NginxBaseline } from "./baselines/nginx.ts";
import { benchConfig } from "./bench-config.ts";
import { openAppOrigin, type AppOrigin } from "./http/app-session.ts";
import { machineInfo } from "./machine-info.ts";
import { renderReport } from "./report.ts";
import { runSoak } from "./soak/soak.ts";
import { resultsJson } from "./results-json.ts";
import type { BenchResult, Section } from "./results-model.ts";
import { buildRoutes } from "./routes.ts";
import { CONTAINER_PORT, READY_DELAY_MS, startBenchStack, type BenchStack } from "./stack/bench-stack.ts";
import { controlPlaneSuite } from "./suites/control-plane.ts";
import { cpuProfilesSuite } from "./suites/cpu-profiles.ts";
import { hopLadderSuite } from "./suites/hop-ladder.ts";
import { hostCeilingSuite } from "./suites/host-ceiling.ts";
import { latencySuite } from "./suites/latency.ts";
import { memorySuite } from "./suites/memory.ts";
import { sshSuite } from "./suites/ssh.ts";
import { streamingSuite } from "./suites/streaming.ts";
import type { SuiteContext } from "./suites/suite-context.ts";
import { throughputSuite } from "./suites/throughput.ts";
import { volumesSuite } from "./suites/volumes.ts";
import { websocketSuite } from "./suites/websocket.ts";
import { evaluateTargets } from "./targets.ts";

const args = parseArgs(process.argv.slice(2), resolve(import.meta.dirname, "results/latest.json"));
if ("error" in args || args.help) {
  process.stderr.write(`${"error" in args ? `${args.error}\n` : ""}${USAGE}\n`);
  process.exit("error" in args ? 2 : 0);
}

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
if (args.soak) process.exit((await runSoak({ minutes: args.minutes, echo: args.echo, log })) ? 0 : 1);
const config = benchConfig(args.full);
const machine = machineInfo();
const started = performance.now();
let stack: BenchStack | null = null;
let nginx: NginxBaseline | null = null;
let minimal: MinimalServer | null = null;

let cleaning: Promise<void> | null = null;
const cleanUp = () =>
  (cleaning ??= (async () => {
    await nginx?.stop().catch(() => undefined);
    await minimal?.stop().catch(() => undefined);
    await stack?.stop().catch(() => undefined);
  })());

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    log(`${signal}: stopping the stack and nginx`);
    void cleanUp().then(() => process.exit(130));
  });
}

try {
  log(`${config.mode} mode: starting the local stack (wrangler dev + 2 agents)…`);
  stack = await startBenchStack({ echo: args.echo, inspectAgents: args.profile });
  log(`stack up at ${stack.baseUrl}; instance ${stack.instanceId} answers; its port ${CONTAINER_PORT} is 127.0.0.1:${stack.container.hostPort}`);
  minimal = await startMinimalServer();
  log(`minimal server (baseline a) on 127.0.0.1:${minimal.port}`);
  const baselineNotes: string[] = [];
  if (args.noNginx) {
    baselineNotes.push("(b) nginx skipped (--no-nginx): nginx figures are unavailable in this run");
  } else {
    const outcome = await startNginx(stack.container.hostPort, log);
    baselineNotes.push(...outcome.notes);
    if (outcome.ok) nginx = outcome.nginx;
    for (const note of outcome.notes) log(note);
  }
  let app: AppOrigin | null = null;
  try {
    app = await openAppOrigin(stack.baseUrl, stack.key, stack.instanceId, CONTAINER_PORT);
  } catch (error) {
    baselineNotes.push(`the apps origin could not be opened (${(error as Error).message}): its figures are unavailable in this run`);
  }
  const routes = buildRoutes({
    baseUrl: stack.baseUrl, instanceId: stack.instanceId, containerPort: CONTAINER_PORT, key: stack.key,
    upstreamPort: stack.container.hostPort, minimalPort: minimal.port, nginxPort: nginx?.port ?? null, app,
  });
  const ctx: SuiteContext = { config, routes, stack, nginx, minimal, log };
  const sections: Section[] = [];
  const suites: [SuiteName, () => Promise<Section | Section[]>][] = [
    ["throughput", () => throughputSuite(ctx)],
    ["latency", () => latencySuite(ctx)],
    ["streaming", () => streamingSuite(ctx)],
    ["websocket", () => websocketSuite(ctx)],
    ["ssh", () => sshSuite(ctx)],
    ["memory", () => memorySuite(ctx)],
    ["control", () => controlPlaneSuite(ctx)],
    ["ceiling", () => hostCeilingSuite(ctx)],
    ["volumes", () => volumesSuite(ctx)],
    ["profile", () => hopLadderSuite(ctx)],
    ...(args.profile ? [["profile", () => cpuProfilesSuite(ctx)] as [SuiteName, () => Promise<Section>]] : []),
  ];
  for (const [name, run] of suites) {
    if (args.only.length > 0 && !args.only.includes(name)) continue;
    try {
      const produced = await run();
      sections.push(...(Array.isArray(produced) ? produced : [produced]));
    } catch (error) {
      log(`${name} suite failed: ${(error as Error).stack ?? String(error)}`);
      sections.push({ id: `failed.${name}`, title: `${name} (failed)`, baselineKeys: [], figures: [], notes: [`the suite failed: ${(error as Error).message}`] });
    }
  }
  // The baselines' provenance leads the report; profile sections close it.
  sections.unshift({
    id: "baselines", title: `Baselines (same run; (b), (c) and ours reach the instance's dev container, port ${CONTAINER_PORT})`, baselineKeys: [], figures: [],
    notes: [
      "(a) direct: the minimal server (bench/baselines/minimal-server.ts: Node http, 1 MiB writes, no per-chunk work, no JSON), its own process on 127.0.0.1; it serves /fast/bytes, /fast/sink and /fast/health with the code the dev container serves them with, so no suite's upstream is slower than (a)",
      `(a′) container: 127.0.0.1 on the host port the local runtime mapped to the container's port ${CONTAINER_PORT}; the baseline of the suites whose routes only the container serves (SSE, chat completions, WebSocket)`,
      ...baselineNotes,
      "(c) worker: GET/POST /bench/passthrough/{port}/… — the Worker fetch()es the upstream itself (no Durable Object, no agent): the platform's floor",
      `ours: /v1/instances/{id}/proxy/${CONTAINER_PORT}/… with an API key; "…, apps origin": the same port as a web app on {id}-${CONTAINER_PORT}.APPS_DOMAIN with its app session cookie; stack vars RATE_LIMIT_RPS=1000000 APPS_RATE_LIMIT_RPS=1000000 BENCH_ROUTES=1, agents DEV_READY_DELAY_MS=${READY_DELAY_MS} DEV_PULL_MS=100`,
    ],
  });
  const result: BenchResult = {
    mode: config.mode,
    machine,
    settings: { ...config, concurrencyLevels: config.concurrencyLevels.join(","), nginx: nginx?.version ?? "unavailable" },
    sections,
    targets: evaluateTargets(sections),
    duration_s: (performance.now() - started) / 1000,
  };
  process.stdout.write(`${renderReport(result)}\n`);
  mkdirSync(dirname(args.out), { recursive: true });
  writeFileSync(args.out, resultsJson(result));
  log(`wrote ${args.out}`);
} catch (error) {
  log(`failed: ${(error as Error).stack ?? String(error)}`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
