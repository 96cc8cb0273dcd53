// The MachineDO's answers about its instances' current use: the GPU utilisation shown on the instance
// object, every figure of the last sample for GET /v1/metrics (contracts/current-usage.ts), and since
// when an instance has been idle, for the AccountDO that decides an idle stop (contracts/idle-stop.ts).
// Idle means: its container running on a connected host, no stream of it open, no traffic and no host
// return since (instance-activity.ts), every GPU under IDLE_GPU_PERCENT in every sample since
// (metrics-store.ts), and a current sample to say so.
import { clock } from "../../core/clock.ts";
import type { CurrentUsageAnswer } from "../contracts/current-usage.ts";
import { CURRENT_SAMPLE_MS, IDLE_GPU_PERCENT, type IdleAnswer, type IdleQuery } from "../contracts/idle-stop.ts";
import type { ContainerLedger } from "./container-ledger.ts";
import type { InstanceActivity } from "./instance-activity.ts";
import type { MachineRecord } from "./machine-record.ts";
import { currentUsage } from "./metrics-series.ts";
import { METRICS_TIERS, type MetricsStore } from "./metrics-store.ts";

export interface IdleWatchParts {
  record: MachineRecord;
  ledger: ContainerLedger;
  metrics: MetricsStore;
  activity: InstanceActivity;
}

export class IdleWatch {
  private readonly parts: IdleWatchParts;

  constructor(parts: IdleWatchParts) {
    this.parts = parts;
  }

  /** Per instance, the mean utilisation of its GPUs in the host's last sample; null when there is no current one. */
  currentGpuUtil(instanceIds: string[]): Record<string, number | null> {
    const online = this.parts.record.isOnline();
    return Object.fromEntries(instanceIds.map((id) => [id, online ? (this.currentSample(id)?.util_percent ?? null) : null]));
  }

  /** Per instance, its figures in the host's last sample, read once for all of them; null when there is no current one naming it. */
  currentUsage(instanceIds: string[]): CurrentUsageAnswer {
    const last = this.parts.record.isOnline() ? this.parts.metrics.lastSample() : null;
    const parts = last && isCurrent(last.at_ms) ? last.parts : {};
    return Object.fromEntries(instanceIds.map((id) => [id, parts[id] ? currentUsage(parts[id]) : null]));
  }

  idleSince(queries: IdleQuery[]): IdleAnswer {
    const online = this.parts.record.isOnline();
    return Object.fromEntries(queries.map((query) => [query.instance_id, online ? this.idleSinceOne(query) : null]));
  }

  private idleSinceOne({ instance_id: id, from_ms: fromMs }: IdleQuery): number | null {
    const { ledger, metrics, activity } = this.parts;
    const row = ledger.container(id);
    if (row?.desired !== "running" || row.actual !== "running") return null;
    // A GPU it could not read is not known to be idle.
    if (activity.inUse(id) || (this.currentSample(id)?.util_percent ?? null) === null) return null;
    const busyUntil = metrics.gpuBusyUntil(id, fromMs, IDLE_GPU_PERCENT);
    return Math.max(fromMs, activity.lastActiveMs(id) ?? fromMs, busyUntil ?? fromMs);
  }

  private currentSample(instanceId: string): { at_ms: number; util_percent: number | null } | null {
    const last = this.parts.metrics.lastGpuUtil(instanceId);
    return last && isCurrent(last.at_ms) ? last : null;
  }
}

/** A sample is stored by its 10-s interval: it counts as current until CURRENT_SAMPLE_MS after that interval's end. */
const isCurrent = (intervalStartMs: number) => intervalStartMs + METRICS_TIERS[0].intervalMs > clock.now() - CURRENT_SAMPLE_MS;
