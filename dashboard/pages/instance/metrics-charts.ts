// What the instance page charts from an instance's usage history: one time axis for every series (an
// interval without a sample is a gap), and a chart per measure, a line per GPU where there are several.
import type { InstanceMetrics } from "../../api/metrics.ts";

export interface ChartLine {
  label: string;
  values: (number | null)[];
}

export interface Chart {
  title: string;
  unit: string;
  /** Seconds since the epoch, oldest first; every line has a value (or null) for each. */
  times: number[];
  lines: ChartLine[];
  /** The axis' top when the measure has one (percentages of a GPU). */
  max?: number;
}

type GpuPoint = InstanceMetrics["gpus"][number]["points"][number];
type ContainerPoint = InstanceMetrics["container"][number];

const MIB_PER_GIB = 1024;
const gib = (mib: number | null) => (mib === null ? null : Math.round((mib / MIB_PER_GIB) * 100) / 100);

export function chartsOf(metrics: InstanceMetrics): Chart[] {
  const stamps = [...new Set([...metrics.container.map((p) => p.t), ...metrics.gpus.flatMap((gpu) => gpu.points.map((p) => p.t))])].sort();
  const times = stamps.map((t) => Date.parse(t) / 1000);
  const aligned = <Point extends { t: string }>(points: Point[], value: (point: Point) => number | null) => {
    const byTime = new Map(points.map((point) => [point.t, value(point)]));
    return stamps.map((t) => byTime.get(t) ?? null);
  };
  const perGpu = (value: (point: GpuPoint) => number | null): ChartLine[] =>
    metrics.gpus.map((gpu) => ({ label: `GPU ${gpu.index}`, values: aligned(gpu.points, value) }));
  const container = (label: string, value: (point: ContainerPoint) => number | null): ChartLine[] => [{ label, values: aligned(metrics.container, value) }];
  return [
    { title: "GPU utilisation", unit: "%", times, lines: perGpu((p) => p.util_percent), max: 100 },
    { title: "GPU memory", unit: "GiB", times, lines: perGpu((p) => gib(p.memory_used_mib)) },
    { title: "GPU power", unit: "W", times, lines: perGpu((p) => p.power_w) },
    { title: "CPU", unit: "% of a core", times, lines: container("CPU", (p) => p.cpu_percent) },
    { title: "Memory", unit: "GiB", times, lines: container("Memory", (p) => gib(p.memory_used_mib)) },
  ];
}
