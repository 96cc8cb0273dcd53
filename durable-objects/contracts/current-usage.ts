// What a MachineDO answers about its instances' use now, for GET /v1/metrics: each instance's figures
// in its host's last sample, as the agent reported them (protocol/messages.ts's instanceUsage).

/** One GPU of the instance at the last sample; a measure nvidia-smi could not give is null. */
export interface CurrentGpu {
  index: number;
  util_percent: number | null;
  memory_used_mib: number | null;
  memory_total_mib: number | null;
  power_w: number | null;
  temperature_c: number | null;
}

/** An instance at its host's last sample: its GPUs by index, and its container's CPU time so far and memory. */
export interface CurrentUsage {
  gpus: CurrentGpu[];
  /** Null from an agent that does not report it, or an engine that gives no CPU time. */
  cpu_seconds: number | null;
  memory_used_mib: number | null;
}

/** Per instance asked for: its current usage, or null without a current sample naming it (host away, sample too old, not sampled). */
export type CurrentUsageAnswer = Record<string, CurrentUsage | null>;
