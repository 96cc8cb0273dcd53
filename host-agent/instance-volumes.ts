// An instance's volumes on this host, between its container and the volume library: each working copy
// restored before the container first starts (and before each start, to the versions its command
// names: a read-only volume sees the latest version at its start, and every mount's size is the
// one its command names from then on), saved on the agent's say (a stop, a destroy, the periodic
// save, the `save` command), a failed save told to the platform, which keeps the last version and
// says why on the instance. After each restore and save the host tells its MachineDO which volume
// versions its cache holds whole (volume_cache). URLs and commits go through the agent's
// connection, for the instance's own volumes only (the MachineDO checks its spec).
import type { AgentMessage } from "../protocol/messages.ts";
import type { VolumeMount } from "../protocol/volumes.ts";
import { errorMessage, type Logger } from "./log.ts";
import type { ContainerRuntime, ContainerVolume } from "./runtime/runtime.ts";
import type { VolumeRequests } from "./volume-requests.ts";
import type { VolumeLibrary } from "./volumes/volume-library.ts";
import { readBase, readMount, writeMount } from "./volumes/working-copy-state.ts";

/** What the command runner asks of an instance's volumes. */
export interface VolumeHooks {
  /**
   * Before the container starts, to the versions `mounts` name (a command's spec; null: the
   * container's own); throws naming the volume that could not be restored.
   */
  restore(instanceId: string, mounts: VolumeMount[] | null): Promise<void>;
  /**
   * Saves every read-write volume, at the size `mounts` name (a command's spec: a volume grown since,
   * kept for the saves after; null: the size it has); never throws (a failure is reported).
   */
  save(instanceId: string, mounts?: VolumeMount[] | null): Promise<void>;
  /** Whether the instance has a volume a save would write. */
  hasWritable(instanceId: string): Promise<boolean>;
}

export interface InstanceVolumesOptions {
  runtime: ContainerRuntime;
  library: VolumeLibrary;
  requests: VolumeRequests;
  send: (message: AgentMessage) => void;
  log: Logger;
}

export class InstanceVolumes implements VolumeHooks {
  readonly #options: InstanceVolumesOptions;

  constructor(options: InstanceVolumesOptions) {
    this.#options = options;
  }

  async restore(instanceId: string, mounts: VolumeMount[] | null): Promise<void> {
    const { runtime, library, requests, log } = this.#options;
    const volumes = await this.#volumes(instanceId);
    if (volumes.length === 0) return;
    const owner = await runtime.volumeOwner(instanceId);
    for (const { mount: own, dir } of volumes) {
      const named = mounts?.find((candidate) => candidate.volume_id === own.volume_id);
      // The path and the mode are the container's, fixed at its create: a command brings a version and a size.
      const mount = named ? { ...own, version: named.version, manifest: named.manifest, max_bytes: named.max_bytes } : own;
      // A copy past the spec's version holds this instance's own saves since its launch (a create
      // again after an error): it is the volume's latest, not something to replace.
      const base = await readBase(dir);
      if (!base || base.volume_id !== mount.volume_id || base.version <= mount.version) {
        try {
          const result = await library.restore(mount, dir, requests.signerFor(instanceId), owner ? { owner } : {});
          log.info("volume restored", { instance_id: instanceId, volume_id: mount.volume_id, version: mount.version, ...result });
        } catch (error) {
          throw new Error(`volume ${mount.volume_id} could not be restored at ${mount.path}: ${errorMessage(error)}`);
        }
      }
      if (named) await writeMount(dir, mount);
    }
    await this.reportHeld();
  }

  /** Tells the MachineDO which volume versions this host's cache holds whole (after the hello, and after each restore and save). */
  async reportHeld(): Promise<void> {
    const { library, send, log } = this.#options;
    try {
      send({ type: "volume_cache", volumes: await library.held() });
    } catch (error) {
      log.warn("volumes held not reported", { error: errorMessage(error) });
    }
  }

  async save(instanceId: string, mounts: VolumeMount[] | null = null): Promise<void> {
    for (const volume of await this.#writable(instanceId)) await this.#saveOne(instanceId, await sized(volume, mounts));
  }

  async hasWritable(instanceId: string): Promise<boolean> {
    return (await this.#writable(instanceId)).length > 0;
  }

  async #saveOne(instanceId: string, { mount, dir }: ContainerVolume): Promise<void> {
    const { library, requests, send, log } = this.#options;
    const ids = { instance_id: instanceId, volume_id: mount.volume_id };
    const result = await library.save(mount, dir, requests.signerFor(instanceId));
    if (result.kind === "saved") {
      log.info("volume saved", { ...ids, version: result.version, bytes_sent: result.bytes_sent });
      await this.reportHeld();
    }
    if (result.kind !== "failed") return;
    log.warn("volume not saved", { ...ids, reason: result.reason, bytes_sent: result.bytes_sent });
    send({ type: "volume_save_failed", ...ids, reason: result.reason });
  }

  async #writable(instanceId: string): Promise<ContainerVolume[]> {
    return (await this.#volumes(instanceId)).filter(({ mount }) => !mount.read_only);
  }

  /** The container's volumes, each with the mount its last create or start named (its size now), else the container's own. */
  async #volumes(instanceId: string): Promise<ContainerVolume[]> {
    return Promise.all((await this.#options.runtime.volumes(instanceId)).map(async ({ mount, dir }) => {
      const named = await readMount(dir);
      return { mount: named?.volume_id === mount.volume_id ? named : mount, dir };
    }));
  }
}

/**
 * The volume at the size a command names for it, when larger, noted beside its copy for the saves
 * that follow. A volume only grows: a smaller size is from a command older than the one noted.
 */
async function sized({ mount, dir }: ContainerVolume, mounts: VolumeMount[] | null): Promise<ContainerVolume> {
  const named = mounts?.find((candidate) => candidate.volume_id === mount.volume_id);
  if (!named || named.max_bytes <= mount.max_bytes) return { mount, dir };
  const resized = { ...mount, max_bytes: named.max_bytes };
  await writeMount(dir, resized);
  return { mount: resized, dir };
}

/** Saves every running instance's read-write volumes each `intervalMs`, through `save` (the command runner's turn for the instance); returns the stop. */
export function startPeriodicSaves(runtime: ContainerRuntime, intervalMs: number, save: (instanceId: string) => Promise<void>, log: Logger): () => void {
  let saving = false;
  const timer = setInterval(() => {
    // A round still saving when the next is due is not doubled: the next waits its turn.
    if (saving) return;
    saving = true;
    runtime.list()
      .then((listed) => Promise.all(listed.filter(({ state }) => state === "running").map(({ instanceId }) => save(instanceId))))
      .catch((error: unknown) => log.warn("periodic volume saves failed", { error: errorMessage(error) }))
      .finally(() => (saving = false));
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
