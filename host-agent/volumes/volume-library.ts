// The agent's volumes: one chunk cache for the host (`<state dir>/volumes/chunks`), and restores and
// saves of working copies, one at a time for each copy (a save asked while another runs waits for
// it, so a periodic save and a `save` command never interleave, nor a save with a restore); each
// copy's version after either is noted (`<state dir>/volumes/held`, held-versions.ts), so the host
// can say which versions it holds whole.
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { VolumeMount } from "../../protocol/volumes.ts";
import type { HeldVolume } from "../../protocol/volumes.ts";
import { ChunkCache } from "./chunk-cache.ts";
import { HeldVersions } from "./held-versions.ts";
import type { VolumeSigner } from "./presigned-urls.ts";
import { restoreVolume, type RestoreOptions, type RestoreResult } from "./volume-restore.ts";
import { saveVolume, type SaveResult } from "./volume-save.ts";
import { readBase, removeState } from "./working-copy-state.ts";

export type { VolumeSigner } from "./presigned-urls.ts";
export type { RestoreOptions, RestoreResult } from "./volume-restore.ts";
export type { SaveResult } from "./volume-save.ts";

export class VolumeLibrary {
  readonly cache: ChunkCache;
  readonly #held: HeldVersions;
  /** The last operation on each working copy, by its resolved path. */
  readonly #queues = new Map<string, Promise<unknown>>();

  /** `cacheBytes`: the config's volumeCacheBytes. */
  constructor(stateDir: string, cacheBytes: number) {
    this.cache = new ChunkCache(join(stateDir, "volumes", "chunks"), cacheBytes);
    this.#held = new HeldVersions(join(stateDir, "volumes", "held"), this.cache);
  }

  /**
   * Makes `into` the volume at `mount.version` (absent, empty or an older copy: replaced whole; the
   * same version already there: left as it is, with whatever was written since). Throws with the
   * reason when it cannot (storage unreachable, a damaged chunk, a manifest refused).
   */
  restore(mount: VolumeMount, into: string, signer: VolumeSigner, options?: RestoreOptions): Promise<RestoreResult> {
    return this.#inTurn(into, () => this.#noting(into, restoreVolume(mount, resolve(into), signer, this.cache, options)));
  }

  /** Saves `from`, restored before, as the volume's next version; never throws (a failure is a result). */
  save(mount: VolumeMount, from: string, signer: VolumeSigner): Promise<SaveResult> {
    return this.#inTurn(from, () => this.#noting(from, saveVolume(mount, resolve(from), signer, this.cache)));
  }

  /** The volume versions whose every chunk the cache holds (protocol/volumes.ts volume_cache), most recently restored or saved first. */
  held(): Promise<HeldVolume[]> {
    return this.#held.whole();
  }

  /** Removes a working copy and what the agent remembered of it (its instance is gone). */
  discard(dir: string): Promise<void> {
    return this.#inTurn(dir, async () => {
      await rm(resolve(dir), { recursive: true, force: true });
      await removeState(resolve(dir));
    });
  }

  /** `work`'s result once the copy's version after it is noted. */
  async #noting<T>(dir: string, work: Promise<T>): Promise<T> {
    const result = await work;
    const base = await readBase(resolve(dir));
    // A note that cannot be written costs only placement's preference for this host, never the restore or the save.
    if (base) await this.#held.note(base).catch(() => {});
    return result;
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
