// Bulk transfer through each route: a download (`GET /fast/bytes?n=N`) and an upload (`POST
// /fast/sink`, whose answer is the count of bytes that arrived), in MB/s, plus the CPU each hop spent
// per MB moved; and the dev container's own routes (`/bytes`, `/echo/…`, which hashes the body) against
// the minimal server, so the upstream's cost is shown apart from the proxy's.
import { exchange } from "../http/http-client.ts";
import type { Figure, Section } from "../results-model.ts";
import { routeUrl, type Route } from "../routes.ts";
import { MB, median, megabytesPerSecond } from "../stats.ts";
import { cpuSnapshot, cpuSpent, HOPS, type CpuSnapshot } from "./cpu-meter.ts";
import { onEachRoute, routeFigure, type PerRoute, type SuiteContext } from "./suite-context.ts";

interface TransferResult {
  mbPerS: number;
  /** CPU ms per MB moved, per hop, averaged over the runs. */
  cpuPerMb: CpuSnapshot;
}

const DIRECTIONS = ["download", "upload"] as const;
type Direction = (typeof DIRECTIONS)[number];
/** The first transfer on each route is not timed: a Node client and server reach full speed only after a few hundred MB. */
const WARM_UP_BYTES = 256 * MB;
/** The fast routes every route serves, or the dev container's own (the container only). */
type Paths = "fast" | "container";

export async function throughputSuite(ctx: SuiteContext): Promise<Section[]> {
  const { transferBytes, transferRuns } = ctx.config;
  const notes = [
    `${transferBytes / MB} MB each way per run (MB = 2^20 bytes), ${transferRuns} run(s) per route and direction after a ${Math.max(transferBytes, WARM_UP_BYTES) / MB} MB warm-up (a Node server and client reach full speed only after a few hundred MB: a 4 MB warm-up measured (a) at a quarter of its speed); median reported`,
    "download: GET /fast/bytes?n=N (1 MiB writes, Content-Length); upload: POST /fast/sink with Content-Length, checked by the count it answers; (a) the minimal server and the dev container serve these with the same code (fast-routes.ts)",
  ];
  const results = {} as Record<Direction, PerRoute<TransferResult>>;
  for (const direction of DIRECTIONS) {
    ctx.log(`throughput: ${direction} ${transferBytes / MB} MB per route`);
    results[direction] = await onEachRoute(ctx, notes, direction, (route) => measureTransfer(ctx, route, direction, "fast"));
  }
  const figures = (["ours", "apps"] as const).flatMap((of) => DIRECTIONS.map((direction) =>
    routeFigure(`throughput.${direction}`, `${direction} ${transferBytes / MB} MB`, "MB/s", "higher", results[direction], (r) => r.mbPerS, of)));
  return [
    { id: "throughput", title: "Throughput", baselineKeys: ["direct", "container", "nginx", "passthrough"], figures, notes },
    cpuSection(results),
    await upstreamSection(ctx, results),
  ];
}

/** The dev container's own /bytes and /echo/…, direct, against (a) on the fast routes: what a slower upstream would hide. */
async function upstreamSection(ctx: SuiteContext, fast: Record<Direction, PerRoute<TransferResult>>): Promise<Section> {
  const notes = [
    "the dev container's own routes, reached directly: GET /bytes?n=N (64 KiB writes) and POST /echo/… (SHA-256 of the body, a JSON answer), against (a) the minimal server on /fast/…",
  ];
  const figures: Figure[] = [];
  for (const direction of DIRECTIONS) {
    ctx.log(`throughput: the dev container's own ${direction} route`);
    let own: number | null = null;
    try {
      own = (await measureTransfer(ctx, ctx.routes.container, direction, "container")).mbPerS;
    } catch (error) {
      notes.push(`${direction} on the container's own route failed: ${(error as Error).message}`);
    }
    const label = direction === "download" ? "container GET /bytes" : "container POST /echo/…";
    figures.push({ id: `upstream.${direction}`, label, unit: "MB/s", better: "higher", ours: own, baselines: { direct: fast[direction].direct?.mbPerS ?? null } });
  }
  return { id: "upstream", title: "Upstream: the dev container's own routes against the minimal server (ours = the container direct)", baselineKeys: ["direct"], figures, notes };
}

async function measureTransfer(ctx: SuiteContext, route: Route, direction: Direction, paths: Paths): Promise<TransferResult> {
  await transferOnce(route, direction, Math.max(ctx.config.transferBytes, WARM_UP_BYTES), paths);
  const rates: number[] = [];
  const spent: CpuSnapshot[] = [];
  for (let run = 0; run < ctx.config.transferRuns; run++) {
    const before = cpuSnapshot(ctx);
    const ms = await transferOnce(route, direction, ctx.config.transferBytes, paths);
    spent.push(cpuSpent(before, cpuSnapshot(ctx)));
    rates.push(megabytesPerSecond(ctx.config.transferBytes, ms));
  }
  const megabytes = (ctx.config.transferBytes / MB) * spent.length;
  const cpuPerMb = Object.fromEntries(HOPS.map((hop) => [hop, spent.reduce((sum, s) => sum + s[hop], 0) / megabytes])) as CpuSnapshot;
  return { mbPerS: median(rates), cpuPerMb };
}

async function transferOnce(route: Route, direction: Direction, bytes: number, paths: Paths): Promise<number> {
  if (direction === "download") {
    const result = await exchange(routeUrl(route, `${paths === "fast" ? "/fast/bytes" : "/bytes"}?n=${bytes}`), { headers: route.headers });
    if (result.status !== 200 || result.bytes !== bytes) throw new Error(`download got ${result.status} with ${result.bytes} of ${bytes} bytes`);
    return result.ms;
  }
  const result = await exchange(routeUrl(route, paths === "fast" ? "/fast/sink" : "/echo/upload"), { method: "POST", headers: route.headers, uploadBytes: bytes, keepBody: true });
  const counted = result.status !== 200 ? -1 : paths === "fast" ? Number(result.body) : (JSON.parse(result.body) as { body_bytes: number }).body_bytes;
  if (counted !== bytes) throw new Error(`upload got ${result.status}; the upstream counted ${counted} of ${bytes} bytes`);
  return result.ms;
}

/** Where the CPU goes per MB moved: the profile that explains a throughput gap hop by hop. */
function cpuSection(results: Record<Direction, PerRoute<TransferResult>>): Section {
  const figures: Figure[] = DIRECTIONS.flatMap((direction) =>
    HOPS.map((hop) => ({
      ...routeFigure(`profile.cpu.${direction}.${hop.replace(" ", "_")}`, `${direction}: ${hop}`, "ms CPU/MB", "lower", results[direction], (r) => r.cpuPerMb[hop]),
      ratios: false,
    })));
  return {
    id: "profile.cpu",
    title: "Profile: CPU time per MB transferred, by process (same runs as above)",
    baselineKeys: ["direct", "container", "nginx", "passthrough"],
    figures,
    notes: [
      "from /proc/<pid>/stat (10 ms ticks) before and after each run; the client is this bench process; workerd front = wrangler's entry proxy, workerd worker = the Worker and its Durable Objects",
      "the machine has 2 cores shared by all of these: a route is CPU-bound when its total approaches 2000 ms per second of transfer",
    ],
  };
}
