// Streaming through each route: server-sent events (time to the first event, and how far the gaps
// between events stray from the upstream's interval) and a streamed chat completion's time to first
// token, measured with the `openai` SDK as a client application would.
import OpenAI from "openai";
import { request, type Agent } from "node:http";
import { keepAliveAgent } from "../http/http-client.ts";
import type { Section } from "../results-model.ts";
import { routeUrl, type Route } from "../routes.ts";
import { jitter, percentile } from "../stats.ts";
import { CONTAINER_BASELINES, onEachRoute, routeFigures, type SuiteContext } from "./suite-context.ts";

interface SseResult {
  firstEventP50: number;
  firstEventP99: number;
  jitterP50: number;
  jitterP99: number;
}

interface CompletionResult {
  ttftP50: number;
  ttftP99: number;
  totalP50: number;
}

export async function streamingSuite(ctx: SuiteContext): Promise<Section> {
  const { sseRuns, sseEvents, sseIntervalMs, completionRuns } = ctx.config;
  const notes = [
    `SSE: ${sseRuns} × GET /sse?n=${sseEvents}&interval_ms=${sseIntervalMs} on a warmed kept-alive connection; first event from sending the request; jitter = |gap between consecutive events − ${sseIntervalMs} ms|`,
    `first token: ${completionRuns} streamed chat completions (max_tokens 16) with the openai SDK (baseURL = route + /v1); from create() to the first chunk with content`,
  ];
  ctx.log("streaming: SSE");
  const sse = await onEachRoute(ctx, notes, "SSE", (route) => sseRun(route, sseRuns, sseEvents, sseIntervalMs), { containerOnly: true });
  ctx.log("streaming: chat completions (openai SDK)");
  const completions = await onEachRoute(ctx, notes, "chat completion", (route) => completionRun(route, completionRuns), { containerOnly: true, apps: false });
  const figures = [
    ...routeFigures(sse, [
      { id: "streaming.sse_first_event.p50", label: "first SSE event p50", unit: "ms", better: "lower", pick: (r) => r.firstEventP50, apps: true },
      { id: "streaming.sse_first_event.p99", label: "first SSE event p99", unit: "ms", better: "lower", pick: (r) => r.firstEventP99 },
      { id: "streaming.sse_jitter.p50", label: "SSE inter-event jitter p50", unit: "ms", better: "lower", pick: (r) => r.jitterP50 },
      { id: "streaming.sse_jitter.p99", label: "SSE inter-event jitter p99", unit: "ms", better: "lower", pick: (r) => r.jitterP99, apps: true },
    ]),
    ...routeFigures(completions, [
      { id: "streaming.ttft.p50", label: "first token p50 (openai SDK)", unit: "ms", better: "lower", pick: (r) => r.ttftP50 },
      { id: "streaming.ttft.p99", label: "first token p99 (openai SDK)", unit: "ms", better: "lower", pick: (r) => r.ttftP99 },
      { id: "streaming.completion.p50", label: "whole completion p50", unit: "ms", better: "lower", pick: (r) => r.totalP50 },
    ]),
  ];
  return { id: "streaming", title: "Streaming", baselineKeys: CONTAINER_BASELINES, figures, notes };
}

async function sseRun(route: Route, runs: number, events: number, intervalMs: number): Promise<SseResult> {
  const agent = keepAliveAgent(1);
  try {
    await sseArrivals(route, agent, 1, 0);
    const firsts: number[] = [];
    const deviations: number[] = [];
    for (let run = 0; run < runs; run++) {
      const arrivals = await sseArrivals(route, agent, events, intervalMs);
      if (arrivals.length !== events) throw new Error(`got ${arrivals.length} of ${events} events`);
      firsts.push(arrivals[0]!);
      deviations.push(...jitter(arrivals, intervalMs));
    }
    return {
      firstEventP50: percentile(firsts, 50), firstEventP99: percentile(firsts, 99),
      jitterP50: percentile(deviations, 50), jitterP99: percentile(deviations, 99),
    };
  } finally {
    agent.destroy();
  }
}

/** Arrival time of each event (ms after the request was sent). */
function sseArrivals(route: Route, agent: Agent, events: number, intervalMs: number): Promise<number[]> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(routeUrl(route, `/sse?n=${events}&interval_ms=${intervalMs}`), { headers: route.headers, agent }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
      const arrivals: number[] = [];
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (text: string) => {
        const now = performance.now() - started;
        buffer += text;
        const parts = buffer.split("\n\n");
        buffer = parts.pop()!;
        for (const part of parts) if (part.startsWith("data:")) arrivals.push(now);
      });
      res.on("end", () => resolve(arrivals));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

async function completionRun(route: Route, runs: number): Promise<CompletionResult> {
  const apiKey = route.headers.authorization?.replace(/^Bearer /, "") ?? "not-needed";
  const client = new OpenAI({ baseURL: routeUrl(route, "/v1"), apiKey, maxRetries: 0 });
  const model = (await client.models.list()).data[0]?.id;
  if (!model) throw new Error("/v1/models listed no model");
  const firsts: number[] = [];
  const totals: number[] = [];
  for (let run = 0; run < runs + 1; run++) {
    const started = performance.now();
    let first: number | null = null;
    const stream = await client.chat.completions.create({ model, messages: [{ role: "user", content: `Say hello ${run}` }], stream: true, max_tokens: 16 });
    for await (const chunk of stream) {
      if (first === null && chunk.choices[0]?.delta?.content) first = performance.now() - started;
    }
    if (first === null) throw new Error("the stream carried no token");
    // The first completion warms the connection and the SDK; it is not counted.
    if (run === 0) continue;
    firsts.push(first);
    totals.push(performance.now() - started);
  }
  return { ttftP50: percentile(firsts, 50), ttftP99: percentile(firsts, 99), totalP50: percentile(totals, 50) };
}
