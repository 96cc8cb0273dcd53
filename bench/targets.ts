// The performance targets of the issues "Benchmarks: npm run bench" and "The host's ceiling", checked
// against figures of the same run: a ratio to a baseline, an excess over a baseline, or an absolute limit.
import type { BaselineKey, Figure, Section, TargetResult } from "./results-model.ts";

export type TargetSpec =
  | { id: string; description: string; kind: "ratio_at_least" | "ratio_at_most"; figure: string; baseline: BaselineKey; factor: number }
  | { id: string; description: string; kind: "excess_at_most"; figure: string; baseline: BaselineKey; limit: number }
  | { id: string; description: string; kind: "at_least" | "at_most"; figure: string; limit: number };

const MB_LIMIT = 64;
/** The host's ceiling: what a large upload or a slow reader may grow any one of our processes by. */
const PROCESS_MB_LIMIT = 32;
const OUR_PROCESSES = ["workerd_worker", "workerd_front", "agent_process"] as const;
const CONTROL_PATHS = { me: "GET /v1/me", instance: "GET /v1/instances/{id}", gpus: "GET /v1/gpus" };

export const TARGETS: TargetSpec[] = [
  ...(["download", "upload"] as const).flatMap((direction): TargetSpec[] => [
    { id: `throughput.${direction}.vs_worker`, description: `proxy ${direction} ≥ 50% of (c) worker pass-through`, kind: "ratio_at_least", figure: `throughput.${direction}`, baseline: "passthrough", factor: 0.5 },
    { id: `throughput.${direction}.vs_direct`, description: `proxy ${direction} ≥ 25% of (a) direct`, kind: "ratio_at_least", figure: `throughput.${direction}`, baseline: "direct", factor: 0.25 },
  ]),
  { id: "latency.p50", description: "small proxied GET p50 ≤ 2 × (c) worker pass-through", kind: "ratio_at_most", figure: "latency.seq.p50", baseline: "passthrough", factor: 2 },
  { id: "latency.rps64", description: "≥ 1,000 requests/s through one machine at 64 concurrent", kind: "at_least", figure: "latency.c64.rps", limit: 1000 },
  { id: "latency.rps64.vs_direct", description: "requests/s at 64 concurrent ≥ 20% of (a) direct", kind: "ratio_at_least", figure: "latency.c64.rps", baseline: "direct", factor: 0.2 },
  // The minimal server has no SSE or chat completions: these compare with the container reached directly.
  { id: "streaming.sse", description: "first SSE event p50 ≤ 5 ms over (a′) container", kind: "excess_at_most", figure: "streaming.sse_first_event.p50", baseline: "container", limit: 5 },
  { id: "streaming.ttft", description: "first token (openai SDK) p50 ≤ 5 ms over (a′) container", kind: "excess_at_most", figure: "streaming.ttft.p50", baseline: "container", limit: 5 },
  { id: "ssh.download", description: "ssh download ≥ 50% of the same bytes through the path proxy (d)", kind: "ratio_at_least", figure: "ssh.download", baseline: "proxied", factor: 0.5 },
  ...(["upload", "download"] as const).map((direction): TargetSpec => ({
    id: `files.${direction}`, description: `gpu cp ${direction} ≥ 50% of the same bytes through the path proxy (d)`, kind: "ratio_at_least", figure: `files.${direction}`, baseline: "proxied", factor: 0.5,
  })),
  { id: "ssh.echo", description: "a typed byte's echo over ssh p50 ≤ 2 × a proxied WebSocket round trip (d)", kind: "ratio_at_most", figure: "ssh.echo.p50", baseline: "proxied", factor: 2 },
  ...(["upload", "slow_reader"] as const).flatMap((run) =>
    (["workerd", "agent"] as const).map((group): TargetSpec => ({
      id: `memory.${run}.${group}`,
      description: `${run === "upload" ? "large upload" : "slow-reader download"}: ${group} RSS growth ≤ ${MB_LIMIT} MB`,
      kind: "at_most", figure: `memory.${run}.${group}`, limit: MB_LIMIT,
    })),
  ),
  // The host's ceiling against the platform's floor: the proxy beside the Worker's own pass-through fetch.
  ...(["download", "upload"] as const).map((direction): TargetSpec => ({
    id: `ceiling.${direction}.vs_worker`, description: `proxy ${direction} ≥ 60% of (c) worker pass-through (host ceiling)`,
    kind: "ratio_at_least", figure: `throughput.${direction}`, baseline: "passthrough", factor: 0.6,
  })),
  { id: "ceiling.rps64.vs_worker", description: "requests/s at 64 concurrent ≥ 80% of (c) worker pass-through (host ceiling)", kind: "ratio_at_least", figure: "latency.c64.rps", baseline: "passthrough", factor: 0.8 },
  // Each of our processes alone (the dev container is the tenant's program, not ours), in the suite's
  // second run and in its first, where a fresh process's heap and allocator grow to their working size.
  ...(["", "first."] as const).flatMap((time) => (["upload", "slow_reader"] as const).flatMap((run) =>
    OUR_PROCESSES.map((process): TargetSpec => ({
      id: `ceiling.memory.${time}${run}.${process}`,
      description: `${run === "upload" ? "large upload" : "slow-reader download"}: ${process.replace("_", " ")} alone grows ≤ ${PROCESS_MB_LIMIT} MB${time ? ", first time" : ""} (host ceiling)`,
      kind: "at_most", figure: `memory.${time}${run}.process.${process}`, limit: PROCESS_MB_LIMIT,
    })),
  )),
  { id: "ceiling.request", description: "host ceiling: MachineDO CPU per small request ≤ 0.2 ms (5,000 requests/s)", kind: "at_most", figure: "ceiling.request_ms", limit: 0.2 },
  ...(["download", "upload"] as const).map((direction): TargetSpec => ({
    id: `ceiling.${direction}`, description: `host ceiling: MachineDO CPU per MB, ${direction}, ≤ 1 ms (1 GB/s)`, kind: "at_most", figure: `ceiling.${direction}_ms_per_mb`, limit: 1,
  })),
  ...(["me", "instance", "gpus"] as const).map((name): TargetSpec => ({
    id: `control.${name}`, description: `control plane ${CONTROL_PATHS[name]} p50 ≤ 2 × noop route p50`,
    kind: "ratio_at_most", figure: `control.${name}.p50`, baseline: "noop", factor: 2,
  })),
];

export function evaluateTargets(sections: readonly Section[], specs: readonly TargetSpec[] = TARGETS): TargetResult[] {
  const figures = new Map(sections.flatMap((section) => section.figures).map((figure) => [figure.id, figure]));
  return specs.map((spec) => evaluate(spec, figures.get(spec.figure)));
}

function evaluate(spec: TargetSpec, figure: Figure | undefined): TargetResult {
  const base = { id: spec.id, description: spec.description };
  const ours = usable(figure?.ours);
  if (figure === undefined || ours === null) return { ...base, status: "unavailable", detail: `${spec.figure} was not measured` };
  const unit = figure.unit;
  switch (spec.kind) {
    case "at_least":
    case "at_most": {
      const pass = spec.kind === "at_least" ? ours >= spec.limit : ours <= spec.limit;
      return { ...base, status: pass ? "pass" : "fail", detail: `${show(ours)} ${unit} (limit ${spec.kind === "at_least" ? "≥" : "≤"} ${show(spec.limit)} ${unit})` };
    }
    case "ratio_at_least":
    case "ratio_at_most": {
      const baseline = usable(figure.baselines[spec.baseline]);
      if (baseline === null || baseline === 0) return { ...base, status: "unavailable", detail: `baseline ${spec.baseline} was not measured` };
      const ratio = ours / baseline;
      const pass = spec.kind === "ratio_at_least" ? ratio >= spec.factor : ratio <= spec.factor;
      return { ...base, status: pass ? "pass" : "fail", detail: `${show(ours)} vs ${show(baseline)} ${unit} = ${ratio.toFixed(2)}× (needs ${spec.kind === "ratio_at_least" ? "≥" : "≤"} ${spec.factor}×)` };
    }
    case "excess_at_most": {
      const baseline = usable(figure.baselines[spec.baseline]);
      if (baseline === null) return { ...base, status: "unavailable", detail: `baseline ${spec.baseline} was not measured` };
      const excess = ours - baseline;
      return { ...base, status: excess <= spec.limit ? "pass" : "fail", detail: `${show(ours)} vs ${show(baseline)} ${unit} = ${excess >= 0 ? "+" : "−"}${show(Math.abs(excess))} ${unit} (needs ≤ +${spec.limit} ${unit})` };
    }
  }
}

function usable(value: number | null | undefined): number | null {
  return value === null || value === undefined || !Number.isFinite(value) ? null : value;
}

function show(value: number): string {
  return Math.abs(value) >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(2);
}
