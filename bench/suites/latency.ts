// Small requests (`GET /fast/health`, a 2-byte answer) through each route: sequential on one kept-alive
// connection, then closed-loop at 16 and 64 concurrent connections for a fixed time (requests/s).
import type { Agent } from "node:http";
import { exchange, keepAliveAgent } from "../http/http-client.ts";
import type { Figure, Section } from "../results-model.ts";
import { routeUrl, type Route } from "../routes.ts";
import { perSecond, summarize, type LatencySummary } from "../stats.ts";
import { onEachRoute, routeFigure, type SuiteContext } from "./suite-context.ts";

interface LoadResult extends LatencySummary {
  rps: number;
  errors: number;
}

const WARM_UP_REQUESTS = 30;

export async function latencySuite(ctx: SuiteContext): Promise<Section> {
  const { sequentialRequests, concurrentMs, concurrencyLevels } = ctx.config;
  const notes = [
    `GET /fast/health (2 bytes; (a) and the container serve it with the same code, unlogged); sequential: ${sequentialRequests} requests on one kept-alive connection after ${WARM_UP_REQUESTS} warm-up; concurrent: closed loop for ${concurrentMs / 1000} s per level on that many kept-alive connections`,
  ];
  ctx.log("latency: sequential small requests");
  const sequential = await onEachRoute(ctx, notes, "sequential requests", (route) => sequentialRun(route, sequentialRequests));
  const figures: Figure[] = (["ours", "apps"] as const).flatMap((of) => [
    routeFigure("latency.seq.p50", "sequential p50", "ms", "lower", sequential, (r) => r.p50, of),
    routeFigure("latency.seq.p99", "sequential p99", "ms", "lower", sequential, (r) => r.p99, of),
  ]);
  for (const level of concurrencyLevels) {
    ctx.log(`latency: ${level} concurrent`);
    const loaded = await onEachRoute(ctx, notes, `${level} concurrent`, (route) => concurrentRun(route, level, concurrentMs));
    for (const which of ["ours", "apps"] as const) {
      figures.push(
        routeFigure(`latency.c${level}.p50`, `${level} concurrent p50`, "ms", "lower", loaded, (r) => r.p50, which),
        routeFigure(`latency.c${level}.p99`, `${level} concurrent p99`, "ms", "lower", loaded, (r) => r.p99, which),
        routeFigure(`latency.c${level}.rps`, `${level} concurrent`, "req/s", "higher", loaded, (r) => r.rps, which),
      );
    }
    for (const [key, result] of Object.entries(loaded)) {
      if (result && result.errors > 0) notes.push(`${key} at ${level} concurrent: ${result.errors} requests did not answer 200`);
    }
  }
  return { id: "latency", title: "Small requests", baselineKeys: ["direct", "container", "nginx", "passthrough"], figures, notes };
}

async function sequentialRun(route: Route, count: number): Promise<LoadResult> {
  const agent = keepAliveAgent(1);
  try {
    for (let i = 0; i < WARM_UP_REQUESTS; i++) await timedGet(route, agent);
    const samples: number[] = [];
    let errors = 0;
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const { ms, ok } = await timedGet(route, agent);
      samples.push(ms);
      if (!ok) errors++;
    }
    return { ...summarize(samples), rps: perSecond(count, performance.now() - started), errors };
  } finally {
    agent.destroy();
  }
}

async function concurrentRun(route: Route, concurrency: number, durationMs: number): Promise<LoadResult> {
  const agent = keepAliveAgent(concurrency);
  try {
    // Open every connection first, so the timed part measures requests, not handshakes.
    await Promise.all(Array.from({ length: concurrency }, () => timedGet(route, agent)));
    const samples: number[] = [];
    let errors = 0;
    const started = performance.now();
    const deadline = started + durationMs;
    const worker = async () => {
      while (performance.now() < deadline) {
        const { ms, ok } = await timedGet(route, agent);
        samples.push(ms);
        if (!ok) errors++;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return { ...summarize(samples), rps: perSecond(samples.length, performance.now() - started), errors };
  } finally {
    agent.destroy();
  }
}

async function timedGet(route: Route, agent: Agent): Promise<{ ms: number; ok: boolean }> {
  const result = await exchange(routeUrl(route, "/fast/health"), { headers: route.headers, agent });
  return { ms: result.ms, ok: result.status === 200 };
}
