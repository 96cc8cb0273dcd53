// The host's ceiling: the MachineDO's own CPU per small proxied request and per MB each way, and what
// one object can therefore carry (profile/ceiling.ts says how). In `wrangler dev` the Worker and every
// Durable Object share one isolate on workerd's main thread, so that thread's CPU is measured from
// /proc and split by a V8 profile of the same workload; wrangler's front workerd is another process
// and is not counted.
import { exchange, keepAliveAgent } from "../http/http-client.ts";
import { ceilingLine, hostCeiling, machineOwner, roundCost, type CeilingRound, type HostCeiling, type Spread } from "../profile/ceiling.ts";
import { openInspector, profileOn, scriptSources, type CpuProfile, type InspectorSession } from "../profile/inspector.ts";
import { workerInspectorUrl } from "../profile/inspector-url.ts";
import { bundleModules, countOwners, type ModuleStart } from "../profile/sample-owners.ts";
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
  const section: Section = { id: "ceiling", title: "Host ceiling: the MachineDO's own CPU per request and per MB", baselineKeys: [], figures: [], notes: [] };
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
  let session = await openInspector(url);
  // workerd's inspector now and then leaves a command unanswered, also in a session that answered
  // before: what was asked is asked again once, on a fresh session.
  const onSession = async <T>(ask: (current: InspectorSession) => Promise<T>): Promise<T> => {
    try {
      return await ask(session);
    } catch {
      session.close();
      session = await openInspector(url);
      return ask(session);
    }
  };
  const profiled = async (work: () => Promise<number>) => (await onSession((current) => profileOn(current, work))).profile;
  const measured: Record<Workload, MeasuredRound[]> = { request: [], download: [], upload: [] };
  let sources: Map<string, string>;
  try {
    ctx.log(`ceiling: warm-up (${WARM_UP_REQUESTS} requests, ${bytes / MB} MB each way)`);
    await smallRequests(routeUrl(route, "/fast/health"), route.headers, Number.POSITIVE_INFINITY, WARM_UP_REQUESTS);
    await run.download();
    await run.upload();
    for (let round = 1; round <= rounds; round++) {
      for (const workload of WORKLOADS) {
        ctx.log(`ceiling: round ${round} of ${rounds}, ${workload}`);
        measured[workload].push(await measureRound(pid, run[workload], profiled));
      }
    }
    const scriptIds = new Set(WORKLOADS.flatMap((w) => measured[w].flatMap((m) => m.profile.nodes.map((node) => node.callFrame.scriptId))));
    sources = await onSession((current) => scriptSources(current, [...scriptIds].filter((id): id is string => id !== undefined && id !== "0")));
  } finally {
    session.close();
  }
  const modules = new Map<string, ModuleStart[]>([...sources].map(([id, source]) => [id, bundleModules(source)]));
  const ceilingRounds = Object.fromEntries(WORKLOADS.map((workload) => [workload, measured[workload].map((m): CeilingRound => ({
    threadCpuMs: m.threadCpuMs, units: m.units, counts: countOwners(m.profile, (id) => modules.get(id), machineOwner),
  }))])) as Record<Workload, CeilingRound[]>;
  const ceiling = hostCeiling(ceilingRounds);
  section.figures.push(...ceilingFigures(ceiling));
  section.notes.push(
    ceilingLine(ceiling),
    `MachineDO CPU, median (min–max) over the rounds: ${shownSpread(ceiling.requestMs)} ms per request, ${shownSpread(ceiling.downloadMsPerMb)} ms per MB down, ${shownSpread(ceiling.uploadMsPerMb)} ms per MB up`,
    `each of ${rounds} round(s): GET /fast/health through the path proxy on ${CONCURRENCY} kept-alive connections for ${requestMs / 1000} s, a ${bytes / MB} MB download (GET /fast/bytes) and a ${bytes / MB} MB upload (POST /fast/sink), each run twice: without the profiler, the CPU of the Worker's workerd's main thread (the isolate's, from /proc/<pid>/task/<pid>/stat) per request or MB; with it, the MachineDO's share of that thread's busy samples`,
    "a sample is the MachineDO's when any frame of its stack is in durable-objects/machine/ (the module read from the bundle's module comments), the rest's when one is in workers/, another object's folder or wrangler's middleware; garbage collection, the runtime's native work and shared code alone are shared out in the same proportion; idle samples count for no one. The dev MachineDO's bench counters count as the rest",
    "ceiling = 1,000 ms ÷ the median of the rounds' MachineDO ms per request (per MB, the slower direction): what one object's serial CPU allows, whatever the edge in front; wrangler's front workerd is not counted, and in wrangler dev the Worker and the objects share the thread, so the runtime work of both lands in the shared-out samples",
    ...WORKLOADS.map((workload) => roundsNote(workload, ceilingRounds[workload])),
  );
  return section;
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

function ceilingFigures(ceiling: HostCeiling): Figure[] {
  const figure = (id: string, label: string, unit: string, better: Figure["better"], ours: number): Figure => ({ id, label, unit, better, ours, baselines: {} });
  return [
    figure("ceiling.request_ms", "MachineDO CPU per small request", "ms", "lower", ceiling.requestMs.median),
    figure("ceiling.download_ms_per_mb", "MachineDO CPU per MB, download", "ms/MB", "lower", ceiling.downloadMsPerMb.median),
    figure("ceiling.upload_ms_per_mb", "MachineDO CPU per MB, upload", "ms/MB", "lower", ceiling.uploadMsPerMb.median),
    figure("ceiling.requests_per_s", "host ceiling, small requests", "req/s", "higher", ceiling.requestsPerS),
    figure("ceiling.mb_per_s", "host ceiling, the slower direction", "MB/s", "higher", ceiling.mbPerS),
  ];
}

function shownSpread(spread: Spread): string {
  return `${spread.median.toFixed(2)} (${spread.min.toFixed(2)}–${spread.max.toFixed(2)})`;
}

function roundsNote(workload: Workload, rounds: readonly CeilingRound[]): string {
  const unit = workload === "request" ? "request" : "MB";
  const shown = rounds.map((round) => {
    const cost = roundCost(round);
    return `${cost.threadMsPerUnit.toFixed(2)} × ${(cost.share * 100).toFixed(0)}% = ${cost.ownMsPerUnit.toFixed(2)}`;
  });
  const samples = rounds.map((round) => `${round.counts.own}/${round.counts.other}/${round.counts.unattributed}`);
  return `${workload}: the thread's ms per ${unit} × the MachineDO's share = its ms per ${unit}, by round: ${shown.join("; ")} (samples MachineDO/rest/shared out: ${samples.join(", ")})`;
}
