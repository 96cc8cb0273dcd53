// The host's ceiling: the MachineDO's own CPU per small proxied request and per MB each way, and what
// one object can therefore carry (profile/ceiling.ts says how). In `wrangler dev` the Worker and every
// Durable Object share one isolate on workerd's main thread, so that thread's CPU is measured from
// /proc and split by a V8 profile of the same workload; wrangler's front workerd is another process
// and is not counted. Beside the small requests, baseline (f), a relay object with none of our code
// (bench/floor), is measured the same way in the same rounds: what any object pays here.
import { exchange, keepAliveAgent } from "../http/http-client.ts";
import { startFloorStack, type FloorStack } from "../floor/floor-stack.ts";
import { ceilingLine, floorOwner, hostCeiling, machineOwner, roundCost, spreadOf, type CeilingRound, type HostCeiling, type Spread } from "../profile/ceiling.ts";
import type { CpuProfile } from "../profile/inspector.ts";
import { workerInspectorUrl } from "../profile/inspector-url.ts";
import { openProfilingSession, type ProfilingSession } from "../profile/profiling-session.ts";
import { bundleModules, countOwners, type ModuleStart, type Owner } from "../profile/sample-owners.ts";
import type { Figure, Section } from "../results-model.ts";
import { routeUrl } from "../routes.ts";
import { mainThreadCpuMs } from "../stack/procfs.ts";
import { MB } from "../stats.ts";
import type { SuiteContext } from "./suite-context.ts";

const WORKLOADS = ["request", "download", "upload"] as const;
type Workload = (typeof WORKLOADS)[number];
const CONCURRENCY = 16;
const WARM_UP_REQUESTS = 200;

/** One unprofiled and one profiled run of a workload. */
interface MeasuredRound {
  threadCpuMs: number;
  units: number;
  profile: CpuProfile;
}

export async function hostCeilingSuite(ctx: SuiteContext): Promise<Section> {
  const { ceilingRounds: rounds, ceilingRequestMs: requestMs, ceilingTransferBytes: bytes } = ctx.config;
  const section: Section = { id: "ceiling", title: "Host ceiling: the MachineDO's own CPU per request and per MB", baselineKeys: ["floor"], figures: [], notes: [] };
  const pid = ctx.stack.pids().workerdWorker;
  const url = pid === null ? null : await workerInspectorUrl(pid);
  if (pid === null || url === null) {
    section.notes.push("the Worker's workerd or its inspector was not found: no ceiling measured");
    return section;
  }
  const route = ctx.routes.ours;
  const run: Record<Workload, () => Promise<number>> = {
    request: () => smallRequests(routeUrl(route, "/fast/health"), route.headers, requestMs),
    download: async () => {
      const answer = await exchange(routeUrl(route, `/fast/bytes?n=${bytes}`), { headers: route.headers });
      if (answer.status !== 200 || answer.bytes !== bytes) throw new Error(`download answered ${answer.status} with ${answer.bytes} of ${bytes} bytes`);
      return bytes / MB;
    },
    upload: async () => {
      const answer = await exchange(routeUrl(route, "/fast/sink"), { method: "POST", headers: route.headers, uploadBytes: bytes, keepBody: true });
      if (answer.status !== 200 || answer.body.trim() !== String(bytes)) throw new Error(`upload answered ${answer.status}: ${answer.body.slice(0, 100)}`);
      return bytes / MB;
    },
  };
  const profiler = await openProfilingSession(url);
  const floor = await startFloor(section);
  let floorProfiler: ProfilingSession | null = null;
  const measured: Record<Workload, MeasuredRound[]> = { request: [], download: [], upload: [] };
  const floorMeasured: MeasuredRound[] = [];
  let sources: Map<string, string>;
  let floorSources = new Map<string, string>();
  try {
    if (floor) floorProfiler = await openProfilingSession(floor.inspectorUrl);
    ctx.log(`ceiling: warm-up (${WARM_UP_REQUESTS} requests, ${bytes / MB} MB each way)`);
    await smallRequests(routeUrl(route, "/fast/health"), route.headers, Number.POSITIVE_INFINITY, WARM_UP_REQUESTS);
    await run.download();
    await run.upload();
    if (floor) await smallRequests(floor.stack.url, {}, Number.POSITIVE_INFINITY, WARM_UP_REQUESTS);
    for (let round = 1; round <= rounds; round++) {
      for (const workload of WORKLOADS) {
        ctx.log(`ceiling: round ${round} of ${rounds}, ${workload}`);
        measured[workload].push(await measureRound(pid, run[workload], profiler.profile));
      }
      if (!floor || !floorProfiler) continue;
      ctx.log(`ceiling: round ${round} of ${rounds}, the bare relay (f)`);
      floorMeasured.push(await measureRound(floor.stack.workerdPid, () => smallRequests(floor.stack.url, {}, requestMs), floorProfiler.profile));
    }
    sources = await profiler.sourcesOf(WORKLOADS.flatMap((w) => measured[w].map((m) => m.profile)));
    if (floorProfiler) floorSources = await floorProfiler.sourcesOf(floorMeasured.map((m) => m.profile));
  } finally {
    profiler.close();
    floorProfiler?.close();
    await floor?.stack.stop();
  }
  const ceilingRounds = Object.fromEntries(WORKLOADS.map((workload) => [workload, roundsOf(measured[workload], sources, machineOwner)])) as Record<Workload, CeilingRound[]>;
  const floorRounds = roundsOf(floorMeasured, floorSources, floorOwner);
  const floorMs = spreadOf(floorRounds.map((round) => roundCost(round).ownMsPerUnit));
  const ceiling = hostCeiling(ceilingRounds);
  section.figures.push(...ceilingFigures(ceiling, floorMs.median));
  section.notes.push(
    ceilingLine(ceiling),
    ...floorNotes(ceiling.requestMs, floorMs, floorRounds.length),
    `MachineDO CPU, median (min–max) over the rounds: ${shownSpread(ceiling.requestMs)} ms per request, ${shownSpread(ceiling.downloadMsPerMb)} ms per MB down, ${shownSpread(ceiling.uploadMsPerMb)} ms per MB up`,
    `each of ${rounds} round(s): GET /fast/health through the path proxy on ${CONCURRENCY} kept-alive connections for ${requestMs / 1000} s, a ${bytes / MB} MB download (GET /fast/bytes) and a ${bytes / MB} MB upload (POST /fast/sink), each run twice: without the profiler, the CPU of the Worker's workerd's main thread (the isolate's, from /proc/<pid>/task/<pid>/stat) per request or MB; with it, the MachineDO's share of that thread's busy samples`,
    "a sample is the MachineDO's when any frame of its stack is in durable-objects/machine/ (the module read from the bundle's module comments), the rest's when one is in workers/, another object's folder or wrangler's middleware; garbage collection, the runtime's native work and shared code alone are shared out in the same proportion; idle samples count for no one. The dev MachineDO's bench counters count as the rest",
    "ceiling = 1,000 ms ÷ the median of the rounds' MachineDO ms per request (per MB, the slower direction): what one object's serial CPU allows, whatever the edge in front; wrangler's front workerd is not counted, and in wrangler dev the Worker and the objects share the thread, so the runtime work of both lands in the shared-out samples",
    ...WORKLOADS.map((workload) => roundsNote(workload, "MachineDO", ceilingRounds[workload])),
    ...(floorRounds.length > 0 ? [roundsNote("request", "(f) object", floorRounds)] : []),
  );
  return section;
}

/** What baseline (f) read, beside the MachineDO's `requestMs`; nothing when it was not measured. */
function floorNotes(requestMs: Spread, floorMs: Spread, rounds: number): string[] {
  if (rounds === 0) return [];
  if (!Number.isFinite(floorMs.median)) return ["(f) bare relay: no profile sample was its object's (floorOwner in bench/profile/ceiling.ts names its modules)"];
  return [
    `(f) bare relay: ${shownSpread(floorMs)} ms of its object's CPU per request by the same arithmetic; the MachineDO's ${(requestMs.median / floorMs.median).toFixed(2)}× it`,
    "(f) is a Durable Object with none of our code (bench/floor): the Worker hands it each request's target and headers in one header, it sends them to its WebSocket peer as one JSON message and answers with the peer's one binary frame; on its own wrangler dev with our stack's settings, the same requests and rounds, each right after ours",
  ];
}

/** Baseline (f), with its isolate's inspector; null, with a note, when it could not be started. */
async function startFloor(section: Section): Promise<{ stack: FloorStack; inspectorUrl: string } | null> {
  let stack: FloorStack | null = null;
  try {
    stack = await startFloorStack();
    const inspectorUrl = await workerInspectorUrl(stack.workerdPid);
    if (inspectorUrl === null) throw new Error("its Worker's inspector was not found");
    return { stack, inspectorUrl };
  } catch (error) {
    await stack?.stop();
    section.notes.push(`(f) bare relay not measured: ${(error as Error).message}`);
    return null;
  }
}

function roundsOf(measured: readonly MeasuredRound[], sources: Map<string, string>, ownerOf: (module: string) => Owner | null): CeilingRound[] {
  const modules = new Map<string, ModuleStart[]>([...sources].map(([id, source]) => [id, bundleModules(source)]));
  return measured.map((m) => ({ threadCpuMs: m.threadCpuMs, units: m.units, counts: countOwners(m.profile, (id) => modules.get(id), ownerOf) }));
}

async function measureRound(pid: number, work: () => Promise<number>, profiled: (work: () => Promise<number>) => Promise<CpuProfile>): Promise<MeasuredRound> {
  const before = mainThreadCpuMs(pid);
  const units = await work();
  const threadCpuMs = mainThreadCpuMs(pid) - before;
  return { threadCpuMs, units, profile: await profiled(work) };
}

/** Small requests on `CONCURRENCY` connections until `durationMs` has passed or `limit` have been sent; returns how many were answered. */
async function smallRequests(url: string, headers: Record<string, string>, durationMs: number, limit = Number.POSITIVE_INFINITY): Promise<number> {
  const agent = keepAliveAgent(CONCURRENCY);
  const deadline = performance.now() + durationMs;
  let sent = 0;
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline && sent < limit) {
        sent++;
        const answer = await exchange(url, { headers, agent });
        if (answer.status !== 200) throw new Error(`GET /fast/health answered ${answer.status}`);
      }
    }));
  } finally {
    agent.destroy();
  }
  return sent;
}

/** `floorMs`: baseline (f)'s object's CPU per request (NaN: not measured). */
function ceilingFigures(ceiling: HostCeiling, floorMs: number): Figure[] {
  const figure = (id: string, label: string, unit: string, better: Figure["better"], ours: number): Figure => ({ id, label, unit, better, ours, baselines: {} });
  return [
    { ...figure("ceiling.request_ms", "MachineDO CPU per small request", "ms", "lower", ceiling.requestMs.median), baselines: { floor: Number.isFinite(floorMs) ? floorMs : null } },
    figure("ceiling.download_ms_per_mb", "MachineDO CPU per MB, download", "ms/MB", "lower", ceiling.downloadMsPerMb.median),
    figure("ceiling.upload_ms_per_mb", "MachineDO CPU per MB, upload", "ms/MB", "lower", ceiling.uploadMsPerMb.median),
    figure("ceiling.requests_per_s", "host ceiling, small requests", "req/s", "higher", ceiling.requestsPerS),
    figure("ceiling.mb_per_s", "host ceiling, the slower direction", "MB/s", "higher", ceiling.mbPerS),
  ];
}

function shownSpread(spread: Spread): string {
  return `${spread.median.toFixed(2)} (${spread.min.toFixed(2)}–${spread.max.toFixed(2)})`;
}

/** `who`: whose share the rounds give ("MachineDO", or baseline (f)'s object). */
function roundsNote(workload: Workload, who: string, rounds: readonly CeilingRound[]): string {
  const unit = workload === "request" ? "request" : "MB";
  const shown = rounds.map((round) => {
    const cost = roundCost(round);
    return `${cost.threadMsPerUnit.toFixed(2)} × ${(cost.share * 100).toFixed(0)}% = ${cost.ownMsPerUnit.toFixed(2)}`;
  });
  const samples = rounds.map((round) => `${round.counts.own}/${round.counts.other}/${round.counts.unattributed}`);
  const label = who === "MachineDO" ? workload : `${who}, ${workload}`;
  return `${label}: the thread's ms per ${unit} × the ${who}'s share = its ms per ${unit}, by round: ${shown.join("; ")} (samples ${who}/rest/shared out: ${samples.join(", ")})`;
}
