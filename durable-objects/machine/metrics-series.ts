// The arithmetic of usage history, free of storage: a sample as the 10-s tier stores it, an
// interval's summary as the coarser tiers store it (per measure: the sum of its readings, their
// highest and their count, so summaries merge exactly whatever their size), and the API's points.
import type { ContainerPoint, GpuPoint } from "../../core/metrics.ts";
import type { CurrentUsage } from "../contracts/current-usage.ts";
import type { InstanceUsage } from "../../protocol/messages.ts";

type Value = number | null;

/** One measure over an interval: the sum of its readings, the highest, and how many there were (0: none readable). */
export type Agg = [sum: number, max: number, count: number];

/** A GPU in a 10-s sample: its index, then utilisation, memory used, memory total, power, temperature. */
export type RawGpu = [index: number, ...values: Value[]];
/**
 * An instance in a 10-s sample: its GPUs, its container's [cpu, memory], and its container's CPU seconds
 * so far when the agent gave them (a counter: only the latest is wanted, so summaries leave it out).
 */
export interface RawPart {
  g: RawGpu[];
  c: Value[];
  s?: number;
}

/** A GPU over an interval: its index, then the measures of RawGpu summarised. */
export type AggGpu = [index: number, ...aggs: Agg[]];
export interface AggPart {
  g: AggGpu[];
  c: Agg[];
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export function rawPart(usage: InstanceUsage): RawPart {
  const part: RawPart = {
    g: usage.gpus.map((gpu) => [gpu.index, gpu.util_percent, gpu.memory_used_mib, gpu.memory_total_mib, gpu.power_w, gpu.temperature_c]),
    c: [usage.cpu_percent, usage.memory_used_mib],
  };
  if (usage.cpu_seconds != null) part.s = usage.cpu_seconds;
  return part;
}

/** The figures of one sample as GET /v1/metrics shows them. */
export function currentUsage(raw: RawPart): CurrentUsage {
  return {
    gpus: raw.g.map(([index, util, used, total, power, temperature]) => ({
      index, util_percent: util ?? null, memory_used_mib: used ?? null, memory_total_mib: total ?? null, power_w: power ?? null, temperature_c: temperature ?? null,
    })),
    cpu_seconds: raw.s ?? null,
    memory_used_mib: raw.c[1] ?? null,
  };
}

const aggOf = (value: Value | undefined): Agg => (value === null || value === undefined ? [0, 0, 0] : [value, value, 1]);

export function aggPart(raw: RawPart): AggPart {
  return { g: raw.g.map(([index, ...values]) => [index, ...values.map(aggOf)]), c: raw.c.map(aggOf) };
}

function mergeAgg(a: Agg = [0, 0, 0], b: Agg = [0, 0, 0]): Agg {
  if (a[2] === 0) return b;
  if (b[2] === 0) return a;
  // Readings carry at most two decimals: rounding the sum keeps float noise out of what is stored.
  return [round2(a[0] + b[0]), Math.max(a[1], b[1]), a[2] + b[2]];
}

const mergeAggs = (a: Agg[], b: Agg[]) => Array.from({ length: Math.max(a.length, b.length) }, (_, i) => mergeAgg(a[i], b[i]));

export function mergeParts(a: AggPart, b: AggPart): AggPart {
  const gpus = new Map<number, Agg[]>(a.g.map(([index, ...aggs]) => [index, aggs]));
  for (const [index, ...aggs] of b.g) gpus.set(index, mergeAggs(gpus.get(index) ?? [], aggs));
  return { g: [...gpus].sort(([x], [y]) => x - y).map(([index, aggs]) => [index, ...aggs]), c: mergeAggs(a.c, b.c) };
}

/** Summaries of the intervals of `intervalMs` that `parts` fall in, by their start, oldest first. */
export function bucketParts(parts: { t: number; part: AggPart }[], intervalMs: number): { t: number; part: AggPart }[] {
  const buckets = new Map<number, AggPart>();
  for (const { t, part } of parts) {
    const start = Math.floor(t / intervalMs) * intervalMs;
    const held = buckets.get(start);
    buckets.set(start, held ? mergeParts(held, part) : part);
  }
  return [...buckets].sort(([x], [y]) => x - y).map(([t, part]) => ({ t, part }));
}

const mean = (agg: Agg | undefined): Value => (agg && agg[2] > 0 ? round2(agg[0] / agg[2]) : null);
const highest = (agg: Agg | undefined): Value => (agg && agg[2] > 0 ? agg[1] : null);

/** The API's points of summarised intervals: a series per GPU index seen, and the container's. */
export function toPoints(buckets: { t: number; part: AggPart }[]): { gpus: { index: number; points: GpuPoint[] }[]; container: ContainerPoint[] } {
  const gpus = new Map<number, GpuPoint[]>();
  const container: ContainerPoint[] = [];
  for (const { t, part } of buckets) {
    const at = new Date(t).toISOString();
    for (const [index, util, used, total, power, temperature] of part.g) {
      const points = gpus.get(index) ?? [];
      points.push({
        t: at,
        util_percent: mean(util), util_percent_max: highest(util),
        memory_used_mib: mean(used), memory_used_mib_max: highest(used),
        memory_total_mib: mean(total),
        power_w: mean(power), power_w_max: highest(power),
        temperature_c: mean(temperature), temperature_c_max: highest(temperature),
      });
      gpus.set(index, points);
    }
    const [cpu, memory] = part.c;
    container.push({ t: at, cpu_percent: mean(cpu), cpu_percent_max: highest(cpu), memory_used_mib: mean(memory), memory_used_mib_max: highest(memory) });
  }
  return { gpus: [...gpus].sort(([x], [y]) => x - y).map(([index, points]) => ({ index, points })), container };
}

/** The highest utilisation any GPU of `part` reached, or null when none was readable. */
export function peakUtil(part: AggPart): Value {
  const peaks = part.g.map(([, util]) => highest(util)).filter((peak): peak is number => peak !== null);
  return peaks.length === 0 ? null : Math.max(...peaks);
}

/** The mean utilisation over the GPUs of one sample, or null when none was readable. */
export function meanUtil(raw: RawPart): Value {
  const utils = raw.g.map(([, util]) => util ?? null).filter((util): util is number => util !== null);
  return utils.length === 0 ? null : round2(utils.reduce((sum, util) => sum + util, 0) / utils.length);
}
