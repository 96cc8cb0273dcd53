// Placement, a pure function of the fleet's index: which online machines could take a launch (its
// GPUs free, its CUDA new enough, its disk_gb within what the machine's disk has left to promise),
// best fit first (fewest free GPUs that still fit), and when none can, a message that says why.
import { fail, type Failure } from "../../core/errors.ts";
import type { LaunchPlan } from "../../core/launch-plan.ts";
import { cudaAtLeast } from "./cuda-version.ts";

export type PlacementRequest = Pick<LaunchPlan, "gpu_model" | "gpu_count" | "template" | "min_cuda" | "disk_gb">;

export interface PlacementMachine {
  id: number;
  /** Free GPUs of the requested model on this machine. */
  free: number;
  /** The newest CUDA its driver supports; "" when unknown. */
  cuda_version: string;
  /** The disk_gb it can still promise (contracts/fleet.ts, diskRoomGb); null: no limit known. */
  disk_room_gb: number | null;
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
  return { ok: true, machine_ids: roomy.sort((a, b) => a.free - b.free || a.id - b.id).map((m) => m.id) };
}
