// What the FleetDO keeps and answers: the GPU models with their prices and availability, and each
// machine as its MachineDO reports it (the fleet's index) and the operator lists it.
import type { HeldVolume } from "../../protocol/volumes.ts";

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

/** A machine's disk (where its instances' disks live) as its agent last said, and what of it is promised. */
export interface MachineDisk {
  total_bytes: number;
  free_bytes: number;
  /** The disk_gb of the instances placed there and not yet destroyed, together. */
  promised_gb: number;
}

/** disk_gb and the agent's upload room count in GiB, as the engine's storage limit (`size=<n>G`) does. */
const GB = 2 ** 30;

/**
 * The disk_gb a machine can still promise a new instance: its disk's size less what its instances
 * were promised. Null for a machine whose agent did not say what its disk is (an older agent, or
 * one that cannot see its engine's data root): no limit is assumed there.
 */
export function diskRoomGb(disk: MachineDisk | null): number | null {
  return disk === null ? null : Math.floor(disk.total_bytes / GB) - disk.promised_gb;
}

/** A launch's volume at its latest version (the account's, at launch), for placement to prefer a host holding it. */
export interface VolumeVersion {
  volume_id: string;
  version: number;
  read_only: boolean;
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
  /** Null until an agent that says its disk has said hello. */
  disk: MachineDisk | null;
  /** The volume versions whose every chunk its host's cache holds (protocol/volumes.ts volume_cache); absent: none. */
  held_volumes?: HeldVolume[];
}

export interface MachineSummary extends HostVersions {
  id: number;
  name: string;
  online: boolean;
  degraded: string;
  gpus: MachineGpu[];
  free_gpus: number;
  last_seen_at: string | null;
  disk: MachineDisk | null;
}
