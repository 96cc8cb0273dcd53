// Placement, a pure function of the fleet's index: which online machines could take a launch (its
// GPUs free, its CUDA new enough, its disk_gb within what the machine's disk has left to promise),
// and when none can, a message that says why. First come those whose cache holds the launch's volumes
// at their latest versions (their restore fetches nothing): most read-write volumes held, then most
// read-only ones; then best fit (fewest free GPUs that still fit).
import { fail, type Failure } from "../../core/errors.ts";
import type { LaunchPlan } from "../../core/launch-plan.ts";
import type { VolumeVersion } from "../contracts/fleet.ts";
import { cudaAtLeast } from "./cuda-version.ts";

export type PlacementRequest = Pick<LaunchPlan, "gpu_model" | "gpu_count" | "template" | "min_cuda" | "disk_gb"> & {
  /** The launch's volumes with content (version 0 is empty everywhere); absent: none. */
  volume_versions?: VolumeVersion[];
};

export interface PlacementMachine {
  id: number;
  /** Free GPUs of the requested model on this machine. */
  free: number;
  /** The newest CUDA its driver supports; "" when unknown. */
  cuda_version: string;
  /** The disk_gb it can still promise (contracts/fleet.ts, diskRoomGb); null: no limit known. */
  disk_room_gb: number | null;
  /** The version of each volume its cache holds whole, by volume id; absent: none. */
  held_volumes?: ReadonlyMap<string, number>;
}

export type Placement = { ok: true; machine_ids: number[] } | Failure;

export function placeLaunch(machines: readonly PlacementMachine[], request: PlacementRequest): Placement {
  const { gpu_model: model, gpu_count: count, template, min_cuda: minCuda, disk_gb: disk } = request;
  const withGpus = machines.filter((m) => m.free >= count);
  if (withGpus.length === 0) return fail("no_capacity", `no machine has ${count} free ${model} GPU(s) right now`);
  const fit = withGpus.filter((m) => cudaAtLeast(m.cuda_version, minCuda));
  if (fit.length === 0) {
    const versions = [...new Set(withGpus.map((m) => m.cuda_version || "unknown"))].sort().join(", ");
    return fail(
      "no_capacity",
      `template ${template} needs CUDA ${minCuda} or newer; the machines with ${count} free ${model} GPU(s) have CUDA ${versions}`,
    );
  }
  const roomy = fit.filter((m) => m.disk_room_gb === null || m.disk_room_gb >= disk);
  if (roomy.length === 0) {
    const most = Math.max(...fit.map((m) => m.disk_room_gb ?? 0));
    return fail("no_capacity", `no machine with ${count} free ${model} GPU(s) and CUDA ${minCuda} or newer has ${disk} GB of disk left for a new instance; the most any has is ${Math.max(0, most)} GB`);
  }
  const ranked = roomy.map((m) => ({ m, ...heldCounts(m, request.volume_versions ?? []) }));
  ranked.sort((a, b) => b.readWrite - a.readWrite || b.readOnly - a.readOnly || a.m.free - b.m.free || a.m.id - b.m.id);
  return { ok: true, machine_ids: ranked.map(({ m }) => m.id) };
}

/** How many of the launch's volumes the machine holds at their latest versions: an older version held counts for nothing. */
function heldCounts(machine: PlacementMachine, volumes: readonly VolumeVersion[]): { readWrite: number; readOnly: number } {
  const counts = { readWrite: 0, readOnly: 0 };
  for (const { volume_id, version, read_only } of volumes) {
    if (machine.held_volumes?.get(volume_id) !== version) continue;
    if (read_only) counts.readOnly++;
    else counts.readWrite++;
  }
  return counts;
}
