// The production runtime: containers on a Docker-compatible engine (Docker, or podman's API service)
// through the Engine API. DOCKER_HOST selects the engine, as with the docker CLI.
import { mkdir } from "node:fs/promises";
import Docker from "dockerode";
import type { ContainerSpec } from "../../protocol/messages.ts";
import {
  containerCreateOptions,
  containerName,
  INSTANCE_LABEL,
  MANAGED_LABEL,
  volumeCreateOptions,
  volumeName,
} from "./docker-container-config.ts";
import { followDieEvents, type DieEvent } from "./docker-exit-events.ts";
import { ensureImage, statusOf } from "./docker-pull.ts";
import type { ContainerExit, ContainerRuntime, Endpoint, ListedContainer } from "./runtime.ts";

export interface DockerRuntimeOptions {
  /** Host folder shared by all containers as the Hugging Face cache. */
  modelCacheDir: string;
  /** Seconds the engine waits after SIGTERM before it kills a stopping container. */
  stopTimeoutSeconds?: number;
  docker?: Docker;
}

export class DockerRuntime implements ContainerRuntime {
  readonly name = "docker";
  readonly #docker: Docker;
  readonly #options: DockerRuntimeOptions;
  readonly #exitListeners: ((exit: ContainerExit) => void)[] = [];
  /** Instances the agent itself is stopping: their `die` events are not news. */
  readonly #stopping = new Set<string>();
  readonly #inspected = new Map<string, Promise<Docker.ContainerInspectInfo | null>>();
  #dieEvents: { close(): void } | null = null;

  constructor(options: DockerRuntimeOptions) {
    this.#options = options;
    this.#docker = options.docker ?? new Docker();
  }

  async list(): Promise<ListedContainer[]> {
    const containers = await this.#docker.listContainers({ all: true, filters: { label: [`${MANAGED_LABEL}=true`] } });
    return containers
      .filter((c) => c.Labels[INSTANCE_LABEL])
      .map((c) => ({ instanceId: c.Labels[INSTANCE_LABEL] ?? "", state: c.State === "running" ? ("running" as const) : ("stopped" as const) }))
      .sort((a, b) => a.instanceId.localeCompare(b.instanceId));
  }

  async create(spec: ContainerSpec, onPullProgress: (percent: number) => void): Promise<void> {
    if ((await this.#inspect(spec.instance_id)) !== null) return;
    await ensureImage(this.#docker, spec.image, onPullProgress);
    const volume = this.#docker.getVolume(volumeName(spec.instance_id));
    await volume.inspect().catch((error: unknown) => {
      if (statusOf(error) !== 404) throw error;
      return this.#docker.createVolume(volumeCreateOptions(spec));
    });
    await mkdir(this.#options.modelCacheDir, { recursive: true });
    await this.#docker.createContainer(containerCreateOptions(spec, this.#options.modelCacheDir)).catch((error: unknown) => {
      if (statusOf(error) !== 409) throw error;
    });
  }

  async start(instanceId: string): Promise<void> {
    this.#stopping.delete(instanceId);
    this.#inspected.delete(instanceId);
    await this.#container(instanceId).start().catch(ignoreStatus(304, instanceId));
  }

  async stop(instanceId: string): Promise<void> {
    this.#stopping.add(instanceId);
    this.#inspected.delete(instanceId);
    await this.#container(instanceId).stop({ t: this.#options.stopTimeoutSeconds ?? 10 }).catch(ignoreStatus(304, instanceId));
  }

  async destroy(instanceId: string): Promise<void> {
    this.#stopping.add(instanceId);
    this.#inspected.delete(instanceId);
    await this.#container(instanceId).remove({ force: true }).catch(ignoreStatus(404, instanceId));
    await this.#docker.getVolume(volumeName(instanceId)).remove().catch(ignoreStatus(404, instanceId));
  }

  async resolvePort(instanceId: string, port: number): Promise<Endpoint | null> {
    let inspected = this.#inspected.get(instanceId);
    if (!inspected) {
      inspected = this.#inspect(instanceId);
      this.#inspected.set(instanceId, inspected);
    }
    const info = await inspected;
    if (!info?.State.Running) {
      this.#inspected.delete(instanceId);
      return null;
    }
    const published = info.NetworkSettings.Ports?.[`${port}/tcp`]?.find((binding) => binding.HostPort);
    if (published) return { host: published.HostIp && published.HostIp !== "0.0.0.0" ? published.HostIp : "127.0.0.1", port: Number(published.HostPort) };
    const ip = Object.values(info.NetworkSettings.Networks ?? {}).find((network) => network.IPAddress)?.IPAddress;
    return ip ? { host: ip, port } : null;
  }

  onExit(listener: (exit: ContainerExit) => void): void {
    this.#exitListeners.push(listener);
    this.#dieEvents ??= followDieEvents(this.#docker, (event) => void this.#noticeDie(event));
  }

  async close(): Promise<void> {
    this.#dieEvents?.close();
    this.#dieEvents = null;
  }

  async #noticeDie({ instanceId, exitCode, atMs, uncertaintyMs }: DieEvent): Promise<void> {
    this.#inspected.delete(instanceId);
    if (this.#stopping.has(instanceId)) return;
    // Events can arrive late: a `die` from a stop the agent made before a later start is stale.
    const info = await this.#inspect(instanceId);
    const startedAfter = atMs > 0 && Date.parse(info?.State.StartedAt ?? "") > atMs + uncertaintyMs;
    if (!info || info.State.Running || startedAfter || this.#stopping.has(instanceId)) return;
    const exit: ContainerExit =
      exitCode === "0"
        ? { instanceId, state: "stopped", message: "container exited" }
        : { instanceId, state: "error", message: `container exited with code ${exitCode || "unknown"}` };
    for (const listener of this.#exitListeners) listener(exit);
  }

  #container(instanceId: string): Docker.Container {
    return this.#docker.getContainer(containerName(instanceId));
  }

  async #inspect(instanceId: string): Promise<Docker.ContainerInspectInfo | null> {
    return this.#container(instanceId)
      .inspect()
      .catch((error: unknown) => (statusOf(error) === 404 ? null : Promise.reject(error)));
  }
}

/** Treats one engine status as success (304 "already in that state", 404 "already gone"); 404 otherwise reads "no container". */
function ignoreStatus(status: number, instanceId: string): (error: unknown) => void {
  return (error) => {
    const actual = statusOf(error);
    if (actual === status) return;
    if (actual === 404) throw new Error(`no container for ${instanceId}`);
    throw error;
  };
}
