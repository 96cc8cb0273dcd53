// How a host's memory and CPUs are shared between its instances: by GPUs. The host keeps a reserve
// (its OS and page cache, the engine, the agent), and each GPU brings an equal part of the rest, so
// an instance with 2 of 8 GPUs gets a quarter. One function, used by the agent (which sets the
// container's limits) and by the control plane (which shows them), so both agree to the byte.

/** What an agent reports of its host (its hello's `host`). */
export interface HostResources {
  memory_bytes: number;
  cpus: number;
}

export interface ResourceShare {
  /** The container's memory limit, with no swap beyond it; whole MiB. */
  memory_bytes: number;
  /** Its CPU time, in billionths of a CPU (Docker's NanoCpus). */
  nano_cpus: number;
}

const MIB = 1024 ** 2;
const GIB = 1024 ** 3;
const NANO = 1_000_000_000;

/**
 * The host's reserve: a tenth of its memory, at least 4 GiB (model loading fills the page cache;
 * the engine and the agent need room), and a sixteenth of its CPUs, at least one; never more than
 * half of either.
 */
export function hostReserve({ memory_bytes, cpus }: HostResources): ResourceShare {
  return {
    memory_bytes: floorTo(Math.min(Math.max(4 * GIB, memory_bytes / 10), memory_bytes / 2), MIB),
    nano_cpus: Math.floor(Math.min(Math.max(NANO, (cpus * NANO) / 16), (cpus * NANO) / 2)),
  };
}

/**
 * An instance's share of a host with `hostGpus` GPUs: what is left after the reserve, divided by the
 * host's GPUs, times the instance's. A host without GPUs, or an instance without one, counts as one.
 */
export function resourceShare(host: HostResources, hostGpus: number, instanceGpus: number): ResourceShare {
  const reserve = hostReserve(host);
  const gpus = Math.max(1, hostGpus);
  const taken = Math.min(gpus, Math.max(1, instanceGpus));
  return {
    memory_bytes: floorTo(((host.memory_bytes - reserve.memory_bytes) * taken) / gpus, MIB),
    nano_cpus: Math.floor(((host.cpus * NANO - reserve.nano_cpus) * taken) / gpus),
  };
}

function floorTo(value: number, unit: number): number {
  return Math.floor(value / unit) * unit;
}
