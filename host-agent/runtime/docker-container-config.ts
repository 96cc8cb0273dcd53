// How a ContainerSpec becomes a Docker container: names, labels (so the agent finds its own
// containers after a restart), GPUs, published ports, the data volume and the model cache mount.
import type Docker from "dockerode";
import type { ContainerSpec } from "../../protocol/messages.ts";

export const MANAGED_LABEL = "gpu-rental.managed";
export const INSTANCE_LABEL = "gpu-rental.instance";
export const DISK_LABEL = "gpu-rental.disk_gb";
export const MODEL_CACHE_TARGET = "/root/.cache/huggingface";

export function containerName(instanceId: string): string {
  return `gpu-rental-${instanceId}`;
}

export function volumeName(instanceId: string): string {
  return `gpu-rental-${instanceId}`;
}

/** The data volume. Its size is recorded, not enforced: that needs a quota-capable storage driver (e.g. overlay2 on xfs with pquota). */
export function volumeCreateOptions(spec: ContainerSpec): Docker.VolumeCreateOptions {
  return {
    Name: volumeName(spec.instance_id),
    Labels: { [MANAGED_LABEL]: "true", [INSTANCE_LABEL]: spec.instance_id, [DISK_LABEL]: String(spec.disk_gb) },
  };
}

export function containerCreateOptions(spec: ContainerSpec, modelCacheDir: string): Docker.ContainerCreateOptions {
  const portKeys = spec.ports.map((port) => `${port}/tcp`);
  return {
    name: containerName(spec.instance_id),
    Image: spec.image,
    ...(spec.command.length > 0 ? { Cmd: spec.command } : {}),
    Env: Object.entries(spec.env).map(([name, value]) => `${name}=${value}`),
    Labels: { [MANAGED_LABEL]: "true", [INSTANCE_LABEL]: spec.instance_id },
    ExposedPorts: Object.fromEntries(portKeys.map((key) => [key, {}])),
    HostConfig: {
      // Published on loopback only, on a port the engine picks: the agent is the only client.
      PortBindings: Object.fromEntries(portKeys.map((key) => [key, [{ HostIp: "127.0.0.1", HostPort: "" }]])),
      Binds: [`${volumeName(spec.instance_id)}:/data`, `${modelCacheDir}:${MODEL_CACHE_TARGET}:rw`],
      ...(spec.gpu_indices.length > 0
        ? { DeviceRequests: [{ Driver: "nvidia", DeviceIDs: spec.gpu_indices.map(String), Capabilities: [["gpu"]] }] }
        : {}),
    },
  };
}
