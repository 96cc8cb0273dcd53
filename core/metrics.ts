// An instance's usage history as the API shows it: the windows it is read in, each with the interval
// of its points, and the shape of the answer. The MachineDO keeps the history
// (durable-objects/machine/metrics-store.ts); GET /v1/instances/{id}/metrics returns it.

export const METRICS_WINDOWS = {
  "1h": { intervalS: 10, spanMs: 3_600_000 },
  "24h": { intervalS: 60, spanMs: 86_400_000 },
  "7d": { intervalS: 600, spanMs: 604_800_000 },
} as const;

export type MetricsWindow = keyof typeof METRICS_WINDOWS;


/** One GPU over one interval: each measure's mean over the samples in it and its highest; null when none was readable. */
export interface GpuPoint {
  t: string;
  util_percent: number | null;
  util_percent_max: number | null;
  memory_used_mib: number | null;
  memory_used_mib_max: number | null;
  memory_total_mib: number | null;
  power_w: number | null;
  power_w_max: number | null;
  temperature_c: number | null;
  temperature_c_max: number | null;
}

/** The container over one interval, as GpuPoint. */
export interface ContainerPoint {
  t: string;
  cpu_percent: number | null;
  cpu_percent_max: number | null;
  memory_used_mib: number | null;
  memory_used_mib_max: number | null;
}

export interface InstanceMetrics {
  window: MetricsWindow;
  interval_s: number;
  gpus: { index: number; points: GpuPoint[] }[];
  container: ContainerPoint[];
}
