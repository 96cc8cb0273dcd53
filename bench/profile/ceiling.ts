// The host's ceiling from the MachineDO's own CPU: every request to a host's instances passes through
// its one MachineDO, which runs one thing at a time, so 1 s of its CPU bounds what the host carries.
// Each round of a workload gives the CPU of the isolate's thread per unit (a request, a MB), measured
// without the profiler (it costs the thread 15-30% here), and the MachineDO's share of that thread's
// busy time, from a profile of the same workload (sample-owners.ts).
import { OBJECT_FOLDERS } from "../../scripts/layers.ts";
import { median } from "../stats.ts";
import { ownShare, type Owner, type SampleCounts } from "./sample-owners.ts";

const MACHINE_FOLDER = "durable-objects/machine/";
/** wrangler's middleware around the Worker's fetch: its entry facade and its templates. */
const WRANGLER_MIDDLEWARE = [".wrangler/", "node_modules/wrangler/"];

/**
 * Owners in the Worker's isolate: the MachineDO's folder is its own; the Worker (workers/, wrangler's
 * middleware around it) and the other objects are the rest. The dev MachineDO's additions
 * (workers/dev/dev-machine-do.ts: the bench's counters) count as the rest, being no part of production.
 * Shared code (core/, protocol/, the contracts, libraries) has no owner.
 */
export function machineOwner(module: string): Owner | null {
  if (module.startsWith(MACHINE_FOLDER)) return "own";
  if (module.startsWith("workers/") || OBJECT_FOLDERS.some((folder) => module.startsWith(folder))) return "other";
  return WRANGLER_MIDDLEWARE.some((prefix) => module.startsWith(prefix)) ? "other" : null;
}

/**
 * Owners in baseline (f)'s isolate (bench/floor): its object is its own; its Worker and wrangler's
 * middleware are the rest. wrangler bundles it from its config's folder, so the modules are named
 * from there ("relay-object.ts", "../../node_modules/wrangler/...").
 */
export function floorOwner(module: string): Owner | null {
  if (module === "relay-object.ts") return "own";
  if (module === "relay-worker.ts") return "other";
  return WRANGLER_MIDDLEWARE.some((prefix) => module.replace(/^(\.\.\/)+/, "").startsWith(prefix)) ? "other" : null;
}

export interface CeilingRound {
  /** CPU of the isolate's thread during the unprofiled run, ms. */
  threadCpuMs: number;
  /** Requests answered, or MB moved, during that run. */
  units: number;
  /** The profiled run's samples by owner. */
  counts: SampleCounts;
}

export interface RoundCost {
  /** The thread's CPU per unit, ms. */
  threadMsPerUnit: number;
  share: number;
  /** The MachineDO's CPU per unit, ms: the thread's × the share. */
  ownMsPerUnit: number;
}

export function roundCost(round: CeilingRound): RoundCost {
  const threadMsPerUnit = round.units > 0 ? round.threadCpuMs / round.units : Number.NaN;
  const share = ownShare(round.counts);
  return { threadMsPerUnit, share, ownMsPerUnit: threadMsPerUnit * share };
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export function spreadOf(values: readonly number[]): Spread {
  const usable = values.filter(Number.isFinite);
  if (usable.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN };
  return { median: median(usable), min: Math.min(...usable), max: Math.max(...usable) };
}

export interface HostCeiling {
  /** The MachineDO's CPU per small request, ms (median over rounds). */
  requestMs: Spread;
  downloadMsPerMb: Spread;
  uploadMsPerMb: Spread;
  requestsPerS: number;
  /** The slower direction's MB/s. */
  mbPerS: number;
  downloadMbPerS: number;
  uploadMbPerS: number;
}

/** The ceiling from each workload's rounds: 1,000 ms of CPU a second ÷ the median CPU per unit. */
export function hostCeiling(rounds: { request: readonly CeilingRound[]; download: readonly CeilingRound[]; upload: readonly CeilingRound[] }): HostCeiling {
  const costs = (list: readonly CeilingRound[]) => spreadOf(list.map((round) => roundCost(round).ownMsPerUnit));
  const requestMs = costs(rounds.request);
  const downloadMsPerMb = costs(rounds.download);
  const uploadMsPerMb = costs(rounds.upload);
  const perSecond = (ms: number) => (ms > 0 ? 1000 / ms : Number.NaN);
  const downloadMbPerS = perSecond(downloadMsPerMb.median);
  const uploadMbPerS = perSecond(uploadMsPerMb.median);
  return {
    requestMs, downloadMsPerMb, uploadMsPerMb, requestsPerS: perSecond(requestMs.median),
    mbPerS: Math.min(downloadMbPerS, uploadMbPerS), downloadMbPerS, uploadMbPerS,
  };
}

export function ceilingLine(ceiling: HostCeiling): string {
  const whole = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "n/a");
  return `host ceiling: ${whole(ceiling.requestsPerS)} requests/s, ${whole(ceiling.mbPerS)} MB/s`
    + ` (download ${whole(ceiling.downloadMbPerS)}, upload ${whole(ceiling.uploadMbPerS)})`;
}
