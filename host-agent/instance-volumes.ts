// An instance's volumes on this host, between its container and the volume library: each working copy
// restored before the container first starts (and before each start, to the versions its command
// names: a read-only volume sees the latest version at its start), saved on the agent's say (a stop, a destroy, the
// periodic save, the `save` command), a failed save told to the platform, which keeps the last
// version and says why on the instance. URLs and commits go through the agent's connection, for the
// instance's own volumes only (the MachineDO checks its spec).
import type { AgentMessage } from "../protocol/messages.ts";
import type { VolumeMount } from "../protocol/volumes.ts";
import { errorMessage, type Logger } from "./log.ts";
import type { ContainerRuntime, ContainerVolume } from "./runtime/runtime.ts";
import type { VolumeRequests } from "./volume-requests.ts";
import type { VolumeLibrary } from "./volumes/volume-library.ts";
import { readBase } from "./volumes/working-copy-state.ts";

/** What the command runner asks of an instance's volumes. */
export interface VolumeHooks {
  /**
   * Before the container starts, to the versions `mounts` name (a command's spec; null: the
   * container's own); throws naming the volume that could not be restored.
   */
  restore(instanceId: string, mounts: VolumeMount[] | null): Promise<void>;
  /** Saves every read-write volume; never throws (a failure is reported). */
  save(instanceId: string): Promise<void>;
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
    const volumes = await runtime.volumes(instanceId);
    if (volumes.length === 0) return;
    const owner = await runtime.volumeOwner(instanceId);
    for (const { mount: own, dir } of volumes) {
      const mount = mounts?.find((named) => named.volume_id === own.volume_id) ?? own;
      // A copy past the spec's version holds this instance's own saves since its launch (a create
      // again after an error): it is the volume's latest, not something to replace.
      const base = await readBase(dir);
      if (base && base.volume_id === mount.volume_id && base.version > mount.version) continue;
      try {
        const result = await library.restore(mount, dir, requests.signerFor(instanceId), owner ? { owner } : {});
        log.info("volume restored", { instance_id: instanceId, volume_id: mount.volume_id, version: mount.version, ...result });
      } catch (error) {
        throw new Error(`volume ${mount.volume_id} could not be restored at ${mount.path}: ${errorMessage(error)}`);
      }
    }
  }

  async save(instanceId: string): Promise<void> {
    for (const volume of await this.#writable(instanceId)) await this.#saveOne(instanceId, volume);
  }

  async hasWritable(instanceId: string): Promise<boolean> {
    return (await this.#writable(instanceId)).length > 0;
  }

  async #saveOne(instanceId: string, { mount, dir }: ContainerVolume): Promise<void> {
    const { library, requests, send, log } = this.#options;
    const ids = { instance_id: instanceId, volume_id: mount.volume_id };
    const result = await library.save(mount, dir, requests.signerFor(instanceId));
    if (result.kind === "saved") log.info("volume saved", { ...ids, version: result.version, bytes_sent: result.bytes_sent });
    if (result.kind !== "failed") return;
    log.warn("volume not saved", { ...ids, reason: result.reason, bytes_sent: result.bytes_sent });
    send({ type: "volume_save_failed", ...ids, reason: result.reason });
  }

  async #writable(instanceId: string): Promise<ContainerVolume[]> {
    return (await this.#options.runtime.volumes(instanceId)).filter(({ mount }) => !mount.read_only);
  }
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
