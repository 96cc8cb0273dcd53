// FleetDO, a single object named "fleet". Authority for: GPU models and their prices, the machine
// registry (ids, names) and the model-cache index. Its free-GPU counts, GPU names, driver/CUDA
// versions, its disk, the volume versions its cache holds and whether a machine is degraded are an index kept current by each MachineDO, which stays the single authority on whether
// a GPU is free: placement here only proposes machines, and a MachineDO refuses a reservation it
// cannot honour. A GPU of model "" (one the agent does not know) is listed but never offered.
// Placement, GET /v1/gpus and the cached models read the index in memory (free-gpu-index.ts).
import { DurableObject } from "cloudflare:workers";
import { fail, type Failure } from "../../core/errors.ts";
import { clock, iso } from "../../core/clock.ts";
import { agentTokens } from "../../core/credentials.ts";
import { machineOf, type Env } from "../../core/env.ts";
import { useLogLevel } from "../../core/log.ts";
import type { HeldVolume } from "../../protocol/volumes.ts";
import type { GpuAvailability, GpuModel, HostVersions, MachineDisk, MachineGpu, MachineState, MachineSummary } from "../contracts/fleet.ts";
import { sqlFor } from "../sql.ts";
import { FreeGpuIndex } from "./free-gpu-index.ts";
import { placeLaunch, type Placement, type PlacementRequest } from "./placement.ts";
import { createFleetSchema } from "./schema.ts";

interface MachineRow extends HostVersions {
  id: number;
  name: string;
  online: number;
  degraded: string;
  last_seen_at: string | null;
  gpus: string;
  free_indices: string;
  cached_models: string;
  /** JSON of a MachineDisk; null until its MachineDO reported one. */
  disk: string | null;
  /** JSON of its HeldVolume list. */
  held_volumes: string;
}

export class FleetDO extends DurableObject<Env> {
  private readonly clock = clock;
  private readonly sql = sqlFor(this.ctx.storage);
  /** Built on first use from the machines table, then kept current by reportMachine. */
  private indexInMemory: FreeGpuIndex | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    useLogLevel(env.LOG_LEVEL);
    createFleetSchema(this.sql);
  }

  putGpuModel(entry: GpuModel): GpuModel {
    this.sql`INSERT INTO gpu_models (model, display_name, vram_gb, price_hour_micros, tier, arch)
             VALUES (${entry.model}, ${entry.display_name}, ${entry.vram_gb}, ${entry.price_hour_micros}, ${entry.tier}, ${entry.arch})
             ON CONFLICT (model) DO UPDATE SET display_name = excluded.display_name, vram_gb = excluded.vram_gb,
               price_hour_micros = excluded.price_hour_micros, tier = excluded.tier, arch = excluded.arch`;
    return entry;
  }

  getGpuModel(model: string): GpuModel | null {
    return this.sql<GpuModel>`SELECT * FROM gpu_models WHERE model = ${model}`[0] ?? null;
  }

  /** Every GPU model with what is free now on online machines. */
  listGpus(): GpuAvailability[] {
    const free = new Map<string, { total: number; max: number }>();
    for (const [, machine] of this.index().machines()) {
      for (const [model, count] of machine.free) {
        const entry = free.get(model) ?? { total: 0, max: 0 };
        free.set(model, { total: entry.total + count, max: Math.max(entry.max, count) });
      }
    }
    return this.sql<GpuModel>`SELECT * FROM gpu_models ORDER BY price_hour_micros, model`.map((entry) => ({
      ...entry,
      free_gpus: free.get(entry.model)?.total ?? 0,
      max_per_server: free.get(entry.model)?.max ?? 0,
    }));
  }

  /** Online machines that could take the launch (enough free GPUs, CUDA new enough, disk left), those holding its volumes then best fit first; or why none can. */
  placementCandidates(request: PlacementRequest): Placement {
    const machines = [];
    for (const [id, machine] of this.index().machines()) {
      const free = machine.free.get(request.gpu_model) ?? 0;
      if (free >= request.gpu_count) machines.push({ id, free, cuda_version: machine.cuda_version, disk_room_gb: machine.disk_room_gb, held_volumes: machine.held_volumes });
    }
    return placeLaunch(machines, request);
  }

  /** Hugging Face ids cached on at least one online machine. */
  cachedModels(): string[] {
    return [...new Set([...this.index().machines()].flatMap(([, machine]) => machine.cached_models))];
  }

  async createMachine(name: string): Promise<{ ok: true; id: number; agent_token: string } | Failure> {
    const [row] = this.sql<{ id: number }>`INSERT INTO machines (name, created_at, online, last_seen_at, gpus, free_indices, cached_models)
      VALUES (${name}, ${iso(this.clock.now())}, 0, NULL, '[]', '[]', '[]') RETURNING id`;
    const id = row!.id;
    const agentToken = agentTokens.issue(id);
    try {
      await machineOf(this.env, id).initialize(id, name, agentToken);
    } catch {
      this.sql`DELETE FROM machines WHERE id = ${id}`;
      return fail("internal", "the machine could not be registered; try again");
    }
    return { ok: true, id, agent_token: agentToken };
  }

  /** A new agent token for machine `id` (shown once); its MachineDO refuses the old one from now on. */
  async replaceAgentToken(id: number): Promise<{ ok: true; token: string } | Failure> {
    if (!this.hasMachine(id)) return fail("not_found", `no machine ${id}`);
    const token = agentTokens.issue(id);
    await machineOf(this.env, id).replaceAgentToken(token);
    return { ok: true, token };
  }

  /** Removes machine `id` from the fleet, once its MachineDO agrees nothing lives on it. */
  async retireMachine(id: number): Promise<{ ok: true } | Failure> {
    if (!this.hasMachine(id)) return fail("not_found", `no machine ${id}`);
    const retired = await machineOf(this.env, id).retire();
    if (!retired.ok) return retired;
    this.sql`DELETE FROM machines WHERE id = ${id}`;
    this.indexInMemory = null;
    return { ok: true };
  }

  listMachines(): MachineSummary[] {
    return this.sql<MachineRow>`SELECT * FROM machines ORDER BY id`.map((row) => ({
      id: row.id,
      name: row.name,
      online: row.online === 1,
      degraded: row.degraded,
      gpus: gpusOf(row),
      free_gpus: (JSON.parse(row.free_indices) as number[]).length,
      last_seen_at: row.last_seen_at,
      agent_version: row.agent_version,
      driver_version: row.driver_version,
      cuda_version: row.cuda_version,
      disk: diskOf(row),
    }));
  }

  reportMachine(id: number, state: MachineState): void {
    const applied = this.sql`UPDATE machines SET online = ${state.online ? 1 : 0}, degraded = ${state.degraded}, last_seen_at = ${state.last_seen_at},
               gpus = ${JSON.stringify(state.gpus)}, free_indices = ${JSON.stringify(state.free_indices)},
               cached_models = ${JSON.stringify(state.cached_models)}, state_version = ${state.version},
               agent_version = ${state.agent_version}, driver_version = ${state.driver_version}, cuda_version = ${state.cuda_version},
               disk = ${state.disk === null ? null : JSON.stringify(state.disk)}, held_volumes = ${JSON.stringify(state.held_volumes ?? [])}
             WHERE id = ${id} AND state_version < ${state.version} RETURNING id`;
    if (applied.length > 0) this.indexInMemory?.set(id, state);
  }

  private hasMachine(id: number): boolean {
    return this.sql`SELECT 1 FROM machines WHERE id = ${id}`.length > 0;
  }

  private index(): FreeGpuIndex {
    if (this.indexInMemory === null) {
      const index = new FreeGpuIndex();
      for (const row of this.sql<MachineRow>`SELECT * FROM machines WHERE online = 1`) {
        index.set(row.id, {
          online: true, degraded: row.degraded, gpus: gpusOf(row), free_indices: JSON.parse(row.free_indices) as number[],
          cuda_version: row.cuda_version, cached_models: JSON.parse(row.cached_models) as string[], disk: diskOf(row),
          held_volumes: JSON.parse(row.held_volumes) as HeldVolume[],
        });
      }
      this.indexInMemory = index;
    }
    return this.indexInMemory;
  }
}

function diskOf(machine: MachineRow): MachineDisk | null {
  return machine.disk === null ? null : (JSON.parse(machine.disk) as MachineDisk);
}

/** The stored GPU list; a MachineDO that pushed before names were indexed left them out. */
function gpusOf(machine: MachineRow): MachineGpu[] {
  return (JSON.parse(machine.gpus) as Partial<MachineGpu>[]).map((gpu) => ({ model: gpu.model ?? "", index: gpu.index ?? 0, name: gpu.name ?? "" }));
}
