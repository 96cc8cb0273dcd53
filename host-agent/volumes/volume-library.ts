// The agent's volumes: one chunk cache for the host (`<state dir>/volumes/chunks`), and restores and
// saves of working copies, one at a time for each copy (a save asked while another runs waits for
// it, so a periodic save and a `save` command never interleave, nor a save with a restore).
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { VolumeMount } from "../../protocol/volumes.ts";
import { ChunkCache } from "./chunk-cache.ts";
import type { VolumeSigner } from "./presigned-urls.ts";
import { restoreVolume, type RestoreOptions, type RestoreResult } from "./volume-restore.ts";
import { saveVolume, type SaveResult } from "./volume-save.ts";
import { removeState } from "./working-copy-state.ts";

export type { VolumeSigner } from "./presigned-urls.ts";
export type { RestoreOptions, RestoreResult } from "./volume-restore.ts";
export type { SaveResult } from "./volume-save.ts";

export class VolumeLibrary {
  readonly cache: ChunkCache;
  /** The last operation on each working copy, by its resolved path. */
  readonly #queues = new Map<string, Promise<unknown>>();

  /** `cacheBytes`: the config's volumeCacheBytes. */
  constructor(stateDir: string, cacheBytes: number) {
    this.cache = new ChunkCache(join(stateDir, "volumes", "chunks"), cacheBytes);
  }

  /**
   * Makes `into` the volume at `mount.version` (absent, empty or an older copy: replaced whole; the
   * same version already there: left as it is, with whatever was written since). Throws with the
   * reason when it cannot (storage unreachable, a damaged chunk, a manifest refused).
   */
  restore(mount: VolumeMount, into: string, signer: VolumeSigner, options?: RestoreOptions): Promise<RestoreResult> {
    return this.#inTurn(into, () => restoreVolume(mount, resolve(into), signer, this.cache, options));
  }

  /** Saves `from`, restored before, as the volume's next version; never throws (a failure is a result). */
  save(mount: VolumeMount, from: string, signer: VolumeSigner): Promise<SaveResult> {
    return this.#inTurn(from, () => saveVolume(mount, resolve(from), signer, this.cache));
  }

  /** Removes a working copy and what the agent remembered of it (its instance is gone). */
  discard(dir: string): Promise<void> {
    return this.#inTurn(dir, async () => {
      await rm(resolve(dir), { recursive: true, force: true });
      await removeState(resolve(dir));
    });
  }

  #inTurn<T>(dir: string, work: () => Promise<T>): Promise<T> {
    const key = resolve(dir);
    const previous = this.#queues.get(key) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(work);
    const settled = next.catch(() => {});
    this.#queues.set(key, settled);
    void settled.then(() => this.#queues.get(key) === settled && this.#queues.delete(key));
    return next;
  }
}
