// The production runtime: containers on a Docker-compatible engine (Docker, or podman's API service)
// through the Engine API. DOCKER_HOST selects the engine, as with the docker CLI.
import { mkdir, rm } from "node:fs/promises";
import { availableParallelism, totalmem } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import Docker from "dockerode";
import { z } from "zod";
import { httpPort, type ContainerSpec, type HttpPort } from "../../protocol/messages.ts";
import { volumeMount } from "../../protocol/volumes.ts";
import { resourceShare, type HostResources } from "../../protocol/resource-share.ts";
import { cachedModelFolder } from "../model-cache.ts";
import {
  containerCreateOptions, containerName, DATA_DIR, HOST_SCOPE, HTTP_PORTS_LABEL, INSTANCE_LABEL, LOG_FILE_BYTES, MANAGED_LABEL, NOTICE_LABEL, VOLUMES_LABEL,
  type ContainerPlacement,
} from "./docker-container-config.ts";
import { engineErrorText, probeDiskLimits, refusesStorageLimit, type DiskLimits } from "./docker-disk-limits.ts";
import { followDieEvents, type DieEvent } from "./docker-exit-events.ts";
import { demultiplexLogs } from "./docker-logs.ts";
import { InstanceNetworks } from "./docker-network.ts";
import { ensureImage, PULL_STALL_MS, statusOf } from "./docker-pull.ts";
import { lookupAllAddresses, type RegistryLookup } from "./registry-address.ts";
import { directoryTar } from "./directory-tar.ts";
import type { ImagePruning } from "./image-pruning.ts";
import { execSession } from "./docker-session.ts";
import type {
  ContainerExit, ContainerRuntime, ContainerUsage, ContainerVolume, CreateOutcome, Endpoint, ExecProcess, ExecRequest, ListedContainer, LogRequest,
} from "./runtime.ts";
import { DEFAULT_NETWORK_POOL } from "./subnet-pool.ts";
import { DockerUsage } from "./docker-usage.ts";
import { userOf, volumeMounts } from "./docker-volumes.ts";

/** The template whose image the launch names (the API's catalog id). */
export const CUSTOM_TEMPLATE = "custom";
/** How a reference to an image built on this host begins (see hostLocalImages). */
const HOST_LOCAL_PREFIX = "localhost/";

export interface DockerRuntimeOptions {
  /** Host folder of the shared Hugging Face cache: a container whose model it holds gets that model's folder, read-only. */
  modelCacheDir: string;
  /** Where instance networks get their /28s; the host firewall refuses traffic between its addresses. */
  networkPool?: string;
  /** The host's memory and CPUs (this machine's by default) and its GPU count (0): each container gets its share by GPUs (resource-share.ts). */
  resources?: HostResources;
  hostGpus?: number;
  /**
   * Whether a container's GPUs become device requests to the NVIDIA container runtime (true unless
   * said otherwise). False where the host's GPUs are not devices (the dev agent's synthetic GPUs on a
   * machine without any): a request for them would fail on Docker, which knows no such device.
   */
  gpuDevices?: boolean;
  /**
   * Dev agent only (dev-main.ts): images named `localhost/...` are this host's own builds, run as
   * they are and never pulled (there is no registry to pull them from). The production agent pulls
   * every custom image, and the API takes no `localhost/` image outside the dev Worker.
   */
  hostLocalImages?: boolean;
  /**
   * The value of the managed label this runtime gives its containers and keeps to (HOST_SCOPE, the
   * host's one agent, unless said otherwise): agents sharing one engine, as the tests' do, each see
   * and reconcile only their own containers, never another's.
   */
  scope?: string;
  /** Seconds the engine waits after SIGTERM before it kills a stopping container. */
  stopTimeoutSeconds?: number;
  /** The engine's log file limit per container (default LOG_FILE_BYTES). */
  logFileBytes?: number;
  /**
   * Whether instances are created where the engine cannot enforce disk_gb (their `creating` notice
   * says so); false refuses them. True unless the agent's operator says otherwise (--unenforced-disk).
   */
  acceptUnenforcedDisk?: boolean;
  /**
   * Where instances' volumes' working copies live, `<volumesDir>/<instance id>/<volume id>`, removed
   * with the container; none: this runtime creates no container with volumes.
   */
  volumesDir?: string;
  /** How long an image pull may make no progress before the create fails (PULL_STALL_MS). */
  pullStallMs?: number;
  /**
   * How a registry's host is resolved before a pull, which is refused unless every address it
   * answers is public (registry-address.ts): the system's resolver unless said otherwise.
   */
  registryLookup?: RegistryLookup;
  /** Told of a tenant's image before its pull and of a template's image in use, to remove tenants' images once unused (image-pruning.ts); none: never removed. */
  images?: ImagePruning;
  docker?: Docker;
}

export class DockerRuntime implements ContainerRuntime {
  readonly name = "docker";
  readonly #docker: Docker;
  readonly #options: DockerRuntimeOptions;
  readonly #networks: InstanceNetworks;
  readonly #usage: DockerUsage;
  readonly #exitListeners: ((exit: ContainerExit) => void)[] = [];
  /** Instances the agent itself is stopping: their `die` events are not news. */
  readonly #stopping = new Set<string>();
  readonly #inspected = new Map<string, Promise<Docker.ContainerInspectInfo | null>>();
  /** Why the engine refused a storage size limit, once it has: later creates do not ask again. */
  #diskLimitRefusal: string | null = null;
  #dieEvents: { close(): void } | null = null;

  get #scope(): string {
    return this.#options.scope ?? HOST_SCOPE;
  }

  constructor(options: DockerRuntimeOptions) {
    this.#options = options;
    this.#docker = options.docker ?? new Docker();
    this.#networks = new InstanceNetworks(this.#docker, options.networkPool ?? DEFAULT_NETWORK_POOL);
    this.#usage = new DockerUsage(this.#docker, this.#scope);
  }

  /** Whether the engine enforces disk_gb: probed once (a container created with a size limit, never started). */
  async diskLimits(): Promise<DiskLimits> {
    if (this.#diskLimitRefusal !== null) return { enforced: false, reason: this.#diskLimitRefusal };
    const limits = await probeDiskLimits(this.#docker);
    if (limits.enforced === false) this.#diskLimitRefusal = limits.reason;
    return limits;
  }

  /** Takes every instance's network off the host (false) or puts it back (true), while the tenant firewall is gone: the bridges set. */
  async setNetworksUp(up: boolean): Promise<string[]> {
    return this.#networks.setBridgesUp((await this.list()).map((c) => c.instanceId), up);
  }

  /** Where tenants' images are removed once unused; null when they never are. */
  get images(): ImagePruning | null {
    return this.#options.images ?? null;
  }

  /** The engine's data root (its DockerRootDir), where containers' writable layers, instances' disks, live. */
  async dataRoot(): Promise<string> {
    return ((await this.#docker.info()) as { DockerRootDir: string }).DockerRootDir;
  }

  async list(): Promise<ListedContainer[]> {
    const containers = await this.#docker.listContainers({ all: true, filters: { label: [`${MANAGED_LABEL}=${this.#scope}`] } });
    return containers
      .filter((c) => c.Labels[INSTANCE_LABEL])
      .map((c) => ({ instanceId: c.Labels[INSTANCE_LABEL] ?? "", state: c.State === "running" ? ("running" as const) : ("stopped" as const) }))
      .sort((a, b) => a.instanceId.localeCompare(b.instanceId));
  }

  async create(spec: ContainerSpec, onPullProgress: (percent: number) => void): Promise<CreateOutcome> {
    const existing = await this.#inspect(spec.instance_id);
    if (existing !== null) {
      // An agent that died between creating the container and adding /data finishes the job.
      if (existing.State.Status === "created") await this.#addDataDir(spec.instance_id);
      return { notice: existing.Config.Labels?.[NOTICE_LABEL] ?? "" };
    }
    if (spec.volumes?.length && this.#options.volumesDir === undefined) throw new Error("this host keeps no volumes");
    // A tenant's own image is pulled every time; a template's pinned one may come from the host.
    const hostLocal = this.#options.hostLocalImages === true && spec.image.startsWith(HOST_LOCAL_PREFIX);
    // Which are the tenants', removed once no container has used them for a while (image-pruning.ts).
    if (spec.template === CUSTOM_TEMPLATE && !hostLocal) await this.#options.images?.willPull(spec.image);
    else await this.#options.images?.templateUses(spec.image);
    await ensureImage(this.#docker, spec.image, onPullProgress, {
      always: spec.template === CUSTOM_TEMPLATE && !hostLocal,
      stallMs: this.#options.pullStallMs ?? PULL_STALL_MS,
      registryLookup: this.#options.registryLookup ?? lookupAllAddresses,
    });
    // The engine binds only a folder that exists: each working copy is one (empty until restored) before the container is.
    for (const { volume_id } of spec.volumes ?? []) await mkdir(this.volumeDir(spec.instance_id, volume_id), { recursive: true });
    const notice = await this.#createWithDiskLimit(spec, {
      network: await this.#networks.ensure(spec.instance_id),
      share: resourceShare(this.#options.resources ?? thisMachine(), this.#options.hostGpus ?? 0, spec.gpu_indices.length),
      cachedModelDir: await cachedModelFolder(this.#options.modelCacheDir, spec.model),
      logFileBytes: this.#options.logFileBytes ?? LOG_FILE_BYTES,
      gpuDevices: this.#options.gpuDevices ?? true,
      volumes: volumeMounts(spec, (volumeId) => this.volumeDir(spec.instance_id, volumeId)),
    });
    await this.#addDataDir(spec.instance_id);
    return { notice };
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
    // `v`: volumes an image declares (VOLUME in its Dockerfile) go with the container.
    await this.#container(instanceId).remove({ force: true, v: true }).catch(ignoreStatus(404, instanceId));
    await this.#networks.remove(instanceId);
    if (this.#options.volumesDir !== undefined) await rm(join(this.#options.volumesDir, instanceId), { recursive: true, force: true });
  }

  async volumes(instanceId: string): Promise<ContainerVolume[]> {
    const label = (await this.#inspect(instanceId))?.Config.Labels?.[VOLUMES_LABEL];
    if (!label) return [];
    return z.array(volumeMount).parse(JSON.parse(label)).map((mount) => ({ mount, dir: this.volumeDir(instanceId, mount.volume_id) }));
  }

  async volumeOwner(instanceId: string): Promise<{ uid: number; gid: number }> {
    return userOf(this.#container(instanceId));
  }

  /** Where the working copy of volume `volumeId` of the instance lives on this host. */
  volumeDir(instanceId: string, volumeId: string): string {
    if (this.#options.volumesDir === undefined) throw new Error("this host keeps no volumes");
    return join(this.#options.volumesDir, instanceId, volumeId);
  }

  async exec(instanceId: string, request: ExecRequest): Promise<ExecProcess | null> {
    const info = await this.#inspect(instanceId);
    return info?.State.Running ? execSession(this.#container(instanceId), request) : null;
  }

  async readArchive(instanceId: string, path: string): Promise<Readable | null> {
    return (this.#container(instanceId).getArchive({ path }) as Promise<NodeJS.ReadableStream>).then(
      (stream) => stream as Readable,
      (error: unknown) => (statusOf(error) === 404 ? null : Promise.reject(error)),
    );
  }

  async writeArchive(instanceId: string, path: string, tar: Readable): Promise<boolean> {
    // Podman creates a missing directory where Docker answers 404: asked first, both refuse alike.
    if (!(await isDirectory(this.#container(instanceId), path))) return false;
    // What goes in belongs to the container's user (its image's USER), as a file it made would,
    // not to whatever the archive names: `gpu cp` names root, another client its uploader's uid.
    return this.#container(instanceId).putArchive(tar, { path, copyUIDGID: "1" }).then(
      () => true,
      (error: unknown) => (statusOf(error) === 404 ? false : Promise.reject(error)),
    );
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

  async logs(instanceId: string, { tail, follow }: LogRequest): Promise<Readable | null> {
    const container = this.#container(instanceId);
    const options = { stdout: true, stderr: true, timestamps: true, tail } as const;
    try {
      // The engine ends a follow when the container stops, and at once for one that is not running.
      const framed = follow ? await container.logs({ ...options, follow: true }) : Readable.from([await container.logs({ ...options, follow: false })]);
      const lines = demultiplexLogs();
      const source = framed as Readable;
      source.on("error", (error) => lines.destroy(error));
      // A reader that stops following closes the engine's stream with it.
      lines.once("close", () => source.destroy());
      return source.pipe(lines);
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw error;
    }
  }

  async httpPorts(instanceId: string): Promise<HttpPort[]> {
    const label = (await this.#inspect(instanceId))?.Config.Labels?.[HTTP_PORTS_LABEL];
    if (!label) return [];
    try {
      return z.array(httpPort).parse(JSON.parse(label));
    } catch {
      return [];
    }
  }

  usage(): Promise<ContainerUsage[]> {
    return this.#usage.read();
  }

  onExit(listener: (exit: ContainerExit) => void): void {
    this.#exitListeners.push(listener);
    this.#dieEvents ??= followDieEvents(this.#docker, this.#scope, (event) => void this.#noticeDie(event));
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

  /** Creates the container with disk_gb as its storage limit where the engine can enforce one; returns the notice. */
  async #createWithDiskLimit(spec: ContainerSpec, placement: Pick<ContainerPlacement, "network" | "share" | "cachedModelDir" | "logFileBytes" | "gpuDevices" | "volumes">): Promise<string> {
    if (this.#diskLimitRefusal === null) {
      try {
        await this.#createContainer(spec, { ...placement, enforceDisk: true, notice: "" });
        return "";
      } catch (error) {
        if (!refusesStorageLimit(error)) throw error;
        // This host's storage driver cannot limit a container's size (e.g. overlay2 on ext4).
        this.#diskLimitRefusal = engineErrorText(error);
      }
    }
    if (this.#options.acceptUnenforcedDisk === false) {
      throw new Error(`disk_gb cannot be enforced on this host (${this.#diskLimitRefusal}), and its operator takes no instances without it`);
    }
    const notice = `disk_gb (${spec.disk_gb} GB) is not enforced on this host: ${this.#diskLimitRefusal}`;
    await this.#createContainer(spec, { ...placement, enforceDisk: false, notice });
    return notice;
  }

  /** /data, writable by whichever user the image runs as (sticky, like /tmp). */
  async #addDataDir(instanceId: string): Promise<void> {
    await this.#container(instanceId).putArchive(directoryTar(DATA_DIR.slice(1), 0o1777), { path: "/" });
  }

  /** Creates the container; a name conflict means an earlier attempt got there first. */
  async #createContainer(spec: ContainerSpec, placement: ContainerPlacement): Promise<void> {
    await this.#docker.createContainer(containerCreateOptions(spec, placement, this.#scope)).catch((error: unknown) => {
      if (statusOf(error) !== 409) throw error;
    });
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

/** Go's os.ModeDir, in the mode of the engine's path stat. */
const MODE_DIR = 2 ** 31;

/** Whether `path` is a directory in the container, from the archive API's path stat (HEAD). */
async function isDirectory(container: Docker.Container, path: string): Promise<boolean> {
  const answer = (await container.infoArchive({ path }).catch((error: unknown) => (statusOf(error) === 404 ? null : Promise.reject(error)))) as
    | (Readable & { headers: Record<string, string | undefined> })
    | null;
  if (!answer) return false;
  answer.resume();
  const stat = answer.headers["x-docker-container-path-stat"];
  if (!stat) return false;
  const { mode } = JSON.parse(Buffer.from(stat, "base64").toString("utf8")) as { mode: number };
  return Math.floor(mode / MODE_DIR) % 2 === 1;
}

/** This machine's memory and CPUs, as the agent reports and shares them. */
export function thisMachine(): HostResources {
  return { memory_bytes: totalmem(), cpus: availableParallelism() };
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
