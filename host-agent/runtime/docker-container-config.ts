// How a ContainerSpec becomes a Docker container a tenant cannot break out of, or into another's:
// names and labels (so the agent finds its own containers after a restart), GPUs, loopback-only
// ports, its own network, its model's folder of the cache read-only, its volumes, dropped capabilities, and limits
// (its share of the host's memory, with no swap, and CPUs).
import { basename } from "node:path";
import type Docker from "dockerode";
import type { ContainerSpec } from "../../protocol/messages.ts";
import type { ResourceShare } from "../../protocol/resource-share.ts";

export const MANAGED_LABEL = "gpu-rental.managed";
/** The managed label's value: what a host's one agent marks its containers with (see DockerRuntimeOptions.scope). */
export const HOST_SCOPE = "true";
export const INSTANCE_LABEL = "gpu-rental.instance";
export const DISK_LABEL = "gpu-rental.disk_gb";
/** The spec's HTTP ports and readiness paths (JSON), so a restarted agent probes a running container again. */
export const HTTP_PORTS_LABEL = "gpu-rental.http_ports";
/** The spec's volumes (JSON), so a restarted agent still saves them. */
export const VOLUMES_LABEL = "gpu-rental.volumes";
/** The `creating` notice, kept on the container so a repeated create reports it again. */
export const NOTICE_LABEL = "gpu-rental.notice";
/** Where the host's shared Hugging Face cache appears in a container: only the instance's model's folder, read-only, under `hub/`. */
export const MODEL_CACHE_TARGET = "/model-cache";
/** The instance's own data, in the container's writable layer: kept across stop, removed on destroy, and inside the disk_gb limit. */
export const DATA_DIR = "/data";

/**
 * Capabilities a container keeps; every other one is dropped. The template images run as root and
 * their entrypoints and package managers (pip, apt in the PyTorch notebook) change file ownership
 * and switch to service users: CHOWN, DAC_OVERRIDE, FOWNER, SETUID, SETGID. Nothing here lets a
 * process reach beyond its own namespaces (no NET_RAW to forge packets on the bridge, no MKNOD,
 * no SYS_*); low ports need no NET_BIND_SERVICE because the unprivileged port floor is set to 0.
 */
export const KEPT_CAPABILITIES = ["CHOWN", "DAC_OVERRIDE", "FOWNER", "SETGID", "SETUID"] as const;

/** A fork bomb's ceiling, not a working limit: threads count as PIDs, and vLLM/PyTorch start hundreds per GPU worker. */
export const PIDS_LIMIT = 16_384;

/**
 * /dev/shm per GPU. Tensor-parallel servers (vLLM, SGLang: NCCL) and PyTorch's worker processes
 * pass tensors through shared memory, and Docker's 64 MB default breaks them; `--ipc=host` would
 * share the host's IPC namespace between tenants instead. 8 GiB per GPU is a ceiling, not a
 * reservation: tmpfs pages are only used as they are written.
 */
export const SHM_BYTES_PER_GPU = 8 * 1024 ** 3;

/**
 * The most of a container's log the engine keeps, per file, and how many files (vLLM logs a line per
 * request batch; nothing else bounds it). Docker's json-file driver rotates: at most
 * LOG_FILES x LOG_FILE_BYTES. podman takes json-file as its own k8s-file and `max-size` as conmon's
 * log size limit, but ignores `max-file`: it empties its one file when it is full, so it keeps at
 * most LOG_FILE_BYTES, and after a truncation only what was written since. In bytes, unitless: the
 * two engines read unit suffixes differently (Docker "m" = MiB, podman "m" = MB).
 */
export const LOG_FILE_BYTES = 50 * 1024 ** 2;
export const LOG_FILES = 2;

export interface ContainerPlacement {
  /** The instance's own network (see docker-network.ts). */
  network: string;
  /** Its share of the host's memory and CPUs, by GPUs. */
  share: ResourceShare;
  /** The host folder of the instance's model in the shared Hugging Face cache (`…/hub/models--ORG--NAME`), or null when it is not there. */
  cachedModelDir: string | null;
  /** Whether disk_gb becomes an engine storage limit (StorageOpt size); false where the storage driver cannot enforce one. */
  enforceDisk: boolean;
  /** What the `creating` report tells the user (kept as a label). */
  notice: string;
  /** The engine's log file limit (LOG_FILE_BYTES unless a test asks for less). */
  logFileBytes: number;
  /** Whether the spec's GPUs become NVIDIA device requests: false where they are not real devices (DockerRuntimeOptions.gpuDevices). */
  gpuDevices: boolean;
  /** The spec's volumes: their working copies bound at their paths (docker-volumes.ts); none when absent. */
  volumes?: Docker.MountSettings[];
}

export function containerName(instanceId: string): string {
  return `gpu-rental-${instanceId}`;
}

export function containerCreateOptions(spec: ContainerSpec, placement: ContainerPlacement, scope = HOST_SCOPE): Docker.ContainerCreateOptions {
  const portKeys = spec.ports.map((port) => `${port}/tcp`);
  const gpus = spec.gpu_indices.length;
  return {
    name: containerName(spec.instance_id),
    Image: spec.image,
    ...(spec.command.length > 0 ? { Cmd: spec.command } : {}),
    Env: Object.entries({ ...spec.env, ...huggingFaceEnv(placement.cachedModelDir !== null) }).map(([name, value]) => `${name}=${value}`),
    Labels: {
      [MANAGED_LABEL]: scope,
      [INSTANCE_LABEL]: spec.instance_id,
      [DISK_LABEL]: String(spec.disk_gb),
      ...(spec.http_ports ? { [HTTP_PORTS_LABEL]: JSON.stringify(spec.http_ports) } : {}),
      ...(spec.volumes?.length ? { [VOLUMES_LABEL]: JSON.stringify(spec.volumes) } : {}),
      ...(placement.notice ? { [NOTICE_LABEL]: placement.notice } : {}),
    },
    ExposedPorts: Object.fromEntries(portKeys.map((key) => [key, {}])),
    HostConfig: {
      // Published on loopback only, on a port the engine picks: the agent is the only client.
      PortBindings: Object.fromEntries(portKeys.map((key) => [key, [{ HostIp: "127.0.0.1", HostPort: "" }]])),
      NetworkMode: placement.network,
      Binds: placement.cachedModelDir === null ? [] : [`${placement.cachedModelDir}:${MODEL_CACHE_TARGET}/hub/${basename(placement.cachedModelDir)}:ro`],
      // Mounts, not Binds: a volume's path is the tenant's, and may hold the colon Binds splits at.
      ...(placement.volumes?.length ? { Mounts: placement.volumes } : {}),
      Privileged: false,
      CapDrop: ["ALL"],
      CapAdd: [...KEPT_CAPABILITIES],
      SecurityOpt: ["no-new-privileges"],
      Sysctls: { "net.ipv4.ip_unprivileged_port_start": "0" },
      PidsLimit: PIDS_LIMIT,
      // Swap as large as the memory limit means none: a tenant over its share is OOM-killed, not paged out onto its neighbours.
      Memory: placement.share.memory_bytes,
      MemorySwap: placement.share.memory_bytes,
      NanoCpus: placement.share.nano_cpus,
      LogConfig: { Type: "json-file", Config: { "max-size": String(placement.logFileBytes), "max-file": String(LOG_FILES) } },
      ...(placement.enforceDisk ? { StorageOpt: { size: `${spec.disk_gb}G` } } : {}),
      ...(gpus > 0
        ? {
            ShmSize: gpus * SHM_BYTES_PER_GPU,
            ...(placement.gpuDevices ? { DeviceRequests: [{ Driver: "nvidia", DeviceIDs: spec.gpu_indices.map(String), Capabilities: [["gpu"]] }] } : {}),
          }
        : {}),
    },
  };
}

/**
 * Where Hugging Face libraries look for and put models. A cached model is read from the shared cache,
 * read-only and offline (no lock files to write); anything else downloads into the instance's own
 * /data, so no tenant can change weights another tenant will load. HUGGINGFACE_HUB_CACHE is the
 * name Text Embeddings Inference reads.
 */
function huggingFaceEnv(modelCached: boolean): Record<string, string> {
  const hubCache = modelCached ? `${MODEL_CACHE_TARGET}/hub` : `${DATA_DIR}/huggingface/hub`;
  return {
    HF_HOME: `${DATA_DIR}/huggingface`,
    HF_HUB_CACHE: hubCache,
    HUGGINGFACE_HUB_CACHE: hubCache,
    ...(modelCached ? { HF_HUB_OFFLINE: "1" } : {}),
  };
}
