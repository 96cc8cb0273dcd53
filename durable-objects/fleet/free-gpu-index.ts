// FleetDO's free-GPU index in memory: per online machine that takes new instances (not degraded), its free GPUs by model, CUDA version,
// the disk it can still promise, cached models and the volume versions its cache holds, loaded once from the machines table when the object wakes and kept current by every
// index update it applies. Placement and GET /v1/gpus read it without a query or a JSON parse per
// machine: scanning 10,000 rows of JSON per launch is what bounded the fleet (docs/scaling.md). The
// machines table stays the durable copy; this is derived from it.
import type { HeldVolume } from "../../protocol/volumes.ts";
import { diskRoomGb, type MachineDisk, type MachineGpu } from "../contracts/fleet.ts";

export interface IndexedMachine {
  /** Free GPUs per known model (a GPU of model "" is never counted, so never offered). */
  free: ReadonlyMap<string, number>;
  cuda_version: string;
  /** The disk_gb it can still promise; null: its agent did not say what its disk is. */
  disk_room_gb: number | null;
  cached_models: readonly string[];
  /** The version of each volume its cache holds whole, by volume id. */
  held_volumes: ReadonlyMap<string, number>;
}

export class FreeGpuIndex {
  private readonly online = new Map<number, IndexedMachine>();

  /** Puts machine `id` as it is now, or takes it out when offline or degraded: its GPUs are offered to no one. */
  set(id: number, state: {
    online: boolean; degraded: string; gpus: readonly MachineGpu[]; free_indices: readonly number[]; cuda_version: string; cached_models: readonly string[]; disk: MachineDisk | null;
    held_volumes?: readonly HeldVolume[];
  }): void {
    if (!state.online || state.degraded !== "") {
      this.online.delete(id);
      return;
    }
    this.online.set(id, {
      free: freeByModel(state.gpus, state.free_indices), cuda_version: state.cuda_version, disk_room_gb: diskRoomGb(state.disk), cached_models: state.cached_models,
      held_volumes: new Map((state.held_volumes ?? []).map((held) => [held.volume_id, held.version])),
    });
  }

  machines(): IterableIterator<[number, IndexedMachine]> {
    return this.online.entries();
  }
}

export function freeByModel(gpus: readonly MachineGpu[], freeIndices: readonly number[]): Map<string, number> {
  const free = new Set(freeIndices);
  const counts = new Map<string, number>();
  for (const gpu of gpus) {
    // `model` is "" for a GPU the agent does not know (and absent in a push older than models).
    if (gpu.model && free.has(gpu.index)) counts.set(gpu.model, (counts.get(gpu.model) ?? 0) + 1);
  }
  return counts;
}
