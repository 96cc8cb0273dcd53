// What the fleet simulation does to one FleetDO: a fleet of simulated machines seeded straight into its
// tables, then closed-loop callers of the RPC methods the service uses (placement for a launch, a
// MachineDO's index update, GET /v1/gpus' listing) for a fixed time, counting completed calls.
import type { MachineState } from "../../durable-objects/contracts/fleet.ts";
import type { FleetDO } from "../../durable-objects/fleet/fleet-do.ts";

/** GPU models of the simulated fleet, each on an equal share of its machines. */
export const SIM_MODELS = ["rtx4090", "l40s", "a100-80gb", "h100-80gb", "h200"] as const;
export const GPUS_PER_MACHINE = 8;
const CUDA = "12.8";

type FleetStub = DurableObjectStub<FleetDO>;

/** Machine `id`'s seeded row: GPUs of one model, half of them free (which half varies). */
export function simulatedMachine(id: number): { model: string; gpus: string; free: number[] } {
  const model = SIM_MODELS[id % SIM_MODELS.length]!;
  const gpus = Array.from({ length: GPUS_PER_MACHINE }, (_, index) => ({ model, index, name: `NVIDIA ${model}` }));
  const free = gpus.map((g) => g.index).filter((index) => (index + id) % 2 === 0);
  return { model, gpus: JSON.stringify(gpus), free };
}

/** `state` for machine `id` as a MachineDO pushes it, at `version`. */
export function machineState(id: number, version: number): MachineState {
  const { gpus, free } = simulatedMachine(id);
  const freeNow = version % 3 === 0 ? free.slice(1) : free;
  return {
    version, online: true, degraded: "", last_seen_at: new Date(0).toISOString(), gpus: JSON.parse(gpus) as MachineState["gpus"],
    free_indices: freeNow, cached_models: [], agent_version: "sim", driver_version: "570.0", cuda_version: CUDA,
  };
}

/** Seeds `machines` online machines (ids 1..machines) and the models, in one transaction. */
export function seedFleet(state: DurableObjectState, machines: number): void {
  const sql = state.storage.sql;
  state.storage.transactionSync(() => {
    for (const [i, model] of SIM_MODELS.entries()) {
      sql.exec(`INSERT OR REPLACE INTO gpu_models (model, display_name, vram_gb, price_hour_micros, tier, arch)
                VALUES (?, ?, 80, ?, 'datacenter', 'sim')`, model, model, 1_000_000 * (i + 1));
    }
    for (let id = 1; id <= machines; id++) {
      const { gpus, free } = simulatedMachine(id);
      sql.exec(`INSERT INTO machines (id, name, created_at, online, last_seen_at, gpus, free_indices, cached_models, state_version,
                  agent_version, driver_version, cuda_version)
                VALUES (?, ?, '1970-01-01T00:00:00.000Z', 1, NULL, ?, ?, '[]', 0, 'sim', '570.0', ?)`,
      id, `sim-${id}`, gpus, JSON.stringify(free), CUDA);
    }
  });
}

export type Operation = "placement" | "index_update" | "list_gpus" | "launch";

/** Versions only grow, across operations and fleets, so every index update is newer than the last and writes. */
let lastVersion = 0;

/** One call (or, for "launch", what a launch costs the fleet: a placement and two index updates). */
export function operation(fleet: FleetStub, machines: number, kind: Operation, n: number): Promise<unknown> {
  const machineId = 1 + ((n * 7919) % machines);
  const placement = () => fleet.placementCandidates({ gpu_model: SIM_MODELS[n % SIM_MODELS.length]!, gpu_count: 1, template: "sim", min_cuda: "12.2" });
  switch (kind) {
    case "placement":
      return placement();
    case "index_update":
      return fleet.reportMachine(machineId, machineState(machineId, ++lastVersion));
    case "list_gpus":
      return fleet.listGpus();
    case "launch":
      // The reservation's push, and the one its stop or destroy makes later.
      return Promise.all([placement(), fleet.reportMachine(machineId, machineState(machineId, ++lastVersion)), fleet.reportMachine(machineId, machineState(machineId, ++lastVersion))]);
  }
}

/** Calls per second of `call` from `concurrency` closed-loop callers over `durationMs`. */
export async function closedLoopRate(call: (n: number) => Promise<unknown>, concurrency: number, durationMs: number): Promise<{ perSecond: number; calls: number }> {
  let next = 0;
  let done = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      await call(next++);
      done++;
    }
  }));
  return { perSecond: (done * 1000) / (performance.now() - started), calls: done };
}
