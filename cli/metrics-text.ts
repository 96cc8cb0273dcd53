// Usage history as text for `gpu metrics` and `gpu top`: each series summed up in a row (its last
// point, its mean and its highest over the window, and a sparkline of its trend).
import type { InstanceMetrics } from "../client/index.ts";

type GpuPoint = InstanceMetrics["gpus"][number]["points"][number];
type ContainerPoint = InstanceMetrics["container"][number];

const BARS = "▁▂▃▄▅▆▇█";
/** How many of the latest points a sparkline shows. */
const TREND_POINTS = 30;

const present = (values: (number | null)[]) => values.filter((value): value is number => value !== null);
const round1 = (n: number) => Math.round(n * 10) / 10;

/** The latest points' values as bars between their own lowest and highest ("" with none). */
export function sparkline(values: (number | null)[]): string {
  const latest = values.slice(-TREND_POINTS);
  const known = present(latest);
  if (known.length === 0) return "";
  const [low, high] = [Math.min(...known), Math.max(...known)];
  return latest.map((value) => (value === null ? " " : BARS[high === low ? 0 : Math.round(((value - low) / (high - low)) * (BARS.length - 1))])).join("");
}

interface Series {
  name: string;
  format: (n: number) => string;
  values: (number | null)[];
  maxima: (number | null)[];
}

const percent = (n: number) => `${round1(n)}%`;
const gib = (mib: number) => `${round1(mib / 1024)} GiB`;

function gpuSeries(index: number, points: GpuPoint[]): Series[] {
  const of = (value: (p: GpuPoint) => number | null, max: (p: GpuPoint) => number | null) => ({ values: points.map(value), maxima: points.map(max) });
  const total = present(points.map((p) => p.memory_total_mib)).at(-1);
  return [
    { name: `gpu ${index} util`, format: percent, ...of((p) => p.util_percent, (p) => p.util_percent_max) },
    { name: `gpu ${index} memory`, format: (n) => (total ? `${gib(n)} of ${gib(total)}` : gib(n)), ...of((p) => p.memory_used_mib, (p) => p.memory_used_mib_max) },
    { name: `gpu ${index} power`, format: (n) => `${Math.round(n)} W`, ...of((p) => p.power_w, (p) => p.power_w_max) },
    { name: `gpu ${index} temperature`, format: (n) => `${Math.round(n)} °C`, ...of((p) => p.temperature_c, (p) => p.temperature_c_max) },
  ];
}

function containerSeries(points: ContainerPoint[]): Series[] {
  return [
    { name: "cpu", format: (n) => `${round1(n)}% of a core`, values: points.map((p) => p.cpu_percent), maxima: points.map((p) => p.cpu_percent_max) },
    { name: "memory", format: gib, values: points.map((p) => p.memory_used_mib), maxima: points.map((p) => p.memory_used_mib_max) },
  ];
}

export const METRICS_HEADER = ["SERIES", "NOW", "MEAN", "MAX", "TREND"];

/** One row per series: NOW is the last point, MEAN the mean of the points, MAX the highest sample. */
export function metricsRows(metrics: InstanceMetrics): string[][] {
  const series = [...metrics.gpus.flatMap((gpu) => gpuSeries(gpu.index, gpu.points)), ...containerSeries(metrics.container)];
  return series.flatMap(({ name, format, values, maxima }) => {
    const known = present(values);
    if (known.length === 0) return [];
    const mean = known.reduce((sum, value) => sum + value, 0) / known.length;
    return [[name, format(known.at(-1)!), format(mean), format(Math.max(...present(maxima))), sparkline(values)]];
  });
}

/** The mean utilisation of the instance's GPUs at their latest point, or null when none was sampled. */
export function latestGpuUtil(metrics: InstanceMetrics): number | null {
  const latest = present(metrics.gpus.map((gpu) => gpu.points.at(-1)?.util_percent ?? null));
  return latest.length === 0 ? null : round1(latest.reduce((sum, util) => sum + util, 0) / latest.length);
}

/** "37.5 of 48 GiB": GPU memory in use over all the instance's GPUs at their latest point, or null. */
export function latestGpuMemory(metrics: InstanceMetrics): string | null {
  const latest = metrics.gpus.map((gpu) => gpu.points.at(-1)).filter((point): point is GpuPoint => point !== undefined);
  const used = present(latest.map((p) => p.memory_used_mib));
  const total = present(latest.map((p) => p.memory_total_mib));
  if (used.length === 0) return null;
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  return total.length === 0 ? gib(sum(used)) : `${round1(sum(used) / 1024)} of ${gib(sum(total))}`;
}

export const WINDOW_WORDS: Record<InstanceMetrics["window"], string> = { "1h": "the last hour", "24h": "the last 24 hours", "7d": "the last 7 days" };
