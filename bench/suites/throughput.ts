// Bulk transfer through each route: a download (`GET /bytes?n=N`) and an upload (`POST /echo/…`,
// whose answer proves every byte arrived), in MB/s, plus the CPU each hop spent per MB moved.
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

const WARM_UP_BYTES = 4 * MB;
const DIRECTIONS = ["download", "upload"] as const;
type Direction = (typeof DIRECTIONS)[number];

export async function throughputSuite(ctx: SuiteContext): Promise<Section[]> {
  const { transferBytes, transferRuns } = ctx.config;
  const notes = [
    `${transferBytes / MB} MB each way per run (MB = 2^20 bytes), ${transferRuns} run(s) per route and direction after a ${WARM_UP_BYTES / MB} MB warm-up; median reported`,
    "download: GET /bytes?n=N streamed by the dev container; upload: POST /echo/… with Content-Length, checked by the body_bytes the container counted",
  ];
  const results = {} as Record<Direction, PerRoute<TransferResult>>;
  for (const direction of DIRECTIONS) {
    ctx.log(`throughput: ${direction} ${transferBytes / MB} MB per route`);
    results[direction] = await onEachRoute(ctx, notes, direction, (route) => measureTransfer(ctx, route, direction));
  }
  const figures = DIRECTIONS.map((direction) =>
    routeFigure(`throughput.${direction}`, `${direction} ${transferBytes / MB} MB`, "MB/s", "higher", results[direction], (r) => r.mbPerS));
  return [
    { id: "throughput", title: "Throughput", baselineKeys: ["direct", "nginx", "passthrough"], figures, notes },
    cpuSection(results),
  ];
}

async function measureTransfer(ctx: SuiteContext, route: Route, direction: Direction): Promise<TransferResult> {
  await transferOnce(route, direction, WARM_UP_BYTES);
  const rates: number[] = [];
  const spent: CpuSnapshot[] = [];
  for (let run = 0; run < ctx.config.transferRuns; run++) {
    const before = cpuSnapshot(ctx);
    const ms = await transferOnce(route, direction, ctx.config.transferBytes);
    spent.push(cpuSpent(before, cpuSnapshot(ctx)));
    rates.push(megabytesPerSecond(ctx.config.transferBytes, ms));
  }
  const megabytes = (ctx.config.transferBytes / MB) * spent.length;
  const cpuPerMb = Object.fromEntries(HOPS.map((hop) => [hop, spent.reduce((sum, s) => sum + s[hop], 0) / megabytes])) as CpuSnapshot;
  return { mbPerS: median(rates), cpuPerMb };
}

async function transferOnce(route: Route, direction: Direction, bytes: number): Promise<number> {
  if (direction === "download") {
    const result = await exchange(routeUrl(route, `/bytes?n=${bytes}`), { headers: route.headers });
    if (result.status !== 200 || result.bytes !== bytes) throw new Error(`download got ${result.status} with ${result.bytes} of ${bytes} bytes`);
    return result.ms;
  }
  const result = await exchange(routeUrl(route, "/echo/upload"), { method: "POST", headers: route.headers, uploadBytes: bytes, keepBody: true });
  const counted = result.status === 200 ? (JSON.parse(result.body) as { body_bytes: number }).body_bytes : -1;
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
    baselineKeys: ["direct", "nginx", "passthrough"],
    figures,
    notes: [
      "from /proc/<pid>/stat (10 ms ticks) before and after each run; the client is this bench process; workerd front = wrangler's entry proxy, workerd worker = the Worker and its Durable Objects",
      "the machine has 2 cores shared by all of these: a route is CPU-bound when its total approaches 2000 ms per second of transfer",
    ],
  };
}
