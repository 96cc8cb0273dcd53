// What the FleetDO keeps and answers: the GPU models with their prices and availability, and each
// machine as its MachineDO reports it (the fleet's index) and the operator lists it.

export interface GpuModel {
  model: string;
  display_name: string;
  vram_gb: number;
  price_hour_micros: number;
  tier: string;
  arch: string;
}

export interface GpuAvailability extends GpuModel {
  free_gpus: number;
  max_per_server: number;
}

/** A machine's GPU as the fleet indexes it: `model` "" is a GPU the agent does not know. */
export interface MachineGpu {
  model: string;
  index: number;
  name: string;
}

/** What its agent last said about the host (all "" until an agent has connected). */
export interface HostVersions {
  agent_version: string;
  driver_version: string;
  cuda_version: string;
}

/** What a MachineDO tells the fleet about its machine. */
export interface MachineState extends HostVersions {
  /** Increases with every change on the MachineDO: an older state arriving late is ignored. */
  version: number;
  online: boolean;
  /** Why the machine takes no new instances now ("" when it does): placement skips it. */
  degraded: string;
  last_seen_at: string | null;
  gpus: MachineGpu[];
  free_indices: number[];
  cached_models: string[];
}

export interface MachineSummary extends HostVersions {
  id: number;
  name: string;
  online: boolean;
  degraded: string;
  gpus: MachineGpu[];
  free_gpus: number;
  last_seen_at: string | null;
}
