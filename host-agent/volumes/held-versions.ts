// Which volume versions this host can restore without fetching anything: for each volume, the last
// version a working copy here was restored from or saved as, with the chunks it names, one file
// `<dir>/<volume id>.json` each, kept after the copy itself is gone (its instance destroyed): the
// chunks stay in the cache. A version is held whole while every one of its chunks is in the cache;
// the agent tells its MachineDO which (volume_cache), and placement prefers this host for a launch
// of those volumes at those versions. At most MAX_HELD_VOLUMES volumes are remembered, the least
// recently restored or saved forgotten first.
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { manifestChunks, MAX_HELD_VOLUMES, VOLUME_ID_PATTERN, type HeldVolume } from "../../protocol/volumes.ts";
import type { ChunkCache } from "./chunk-cache.ts";
import type { Base } from "./working-copy-state.ts";

/** `used`: when it was noted, in ms, made distinct from every other note's so the order survives a restart. */
const noted = z.object({ version: z.number().int().min(1), used: z.number(), chunks: z.array(z.string()) });
type Noted = z.infer<typeof noted>;

export class HeldVersions {
  readonly #dir: string;
  readonly #cache: ChunkCache;
  /** By volume id. */
  readonly #noted = new Map<string, Noted>();
  #loaded: Promise<void> | null = null;

  constructor(dir: string, cache: ChunkCache) {
    this.#dir = dir;
    this.#cache = cache;
  }

  /** A working copy is now `base` (restored, or saved as it): its version is what this host last had of the volume. */
  async note(base: Base): Promise<void> {
    // Version 0 is empty: every host holds it.
    if (base.manifest === null) return;
    await this.#load();
    // An unchanged save notes the version it already noted: nothing to write again.
    if (this.#noted.get(base.volume_id)?.version === base.version) return;
    const latest = [...this.#noted.values()].at(-1)?.used ?? 0;
    const entry: Noted = { version: base.version, used: Math.max(Date.now(), latest + 1), chunks: [...manifestChunks(base.content).keys()] };
    this.#noted.delete(base.volume_id);
    this.#noted.set(base.volume_id, entry);
    // Two copies of one volume (read-only mounts of two instances) may note it at once: each writes its own temporary file.
    const temporary = join(this.#dir, `${base.volume_id}.${randomBytes(6).toString("hex")}.tmp`);
    await writeFile(temporary, JSON.stringify(entry));
    await rename(temporary, join(this.#dir, `${base.volume_id}.json`));
    for (const volumeId of [...this.#noted.keys()].slice(0, Math.max(0, this.#noted.size - MAX_HELD_VOLUMES))) {
      this.#noted.delete(volumeId);
      await rm(join(this.#dir, `${volumeId}.json`), { force: true });
    }
  }

  /** The versions whose every chunk the cache holds now, most recently restored or saved first. */
  async whole(): Promise<HeldVolume[]> {
    await this.#load();
    const held: HeldVolume[] = [];
    for (const [volumeId, { version, chunks }] of [...this.#noted].reverse()) {
      if (await everyCached(this.#cache, chunks)) held.push({ volume_id: volumeId, version });
    }
    return held;
  }

  /** What earlier runs of the agent noted, oldest first; a file that does not parse is forgotten. */
  #load(): Promise<void> {
    this.#loaded ??= (async () => {
      await mkdir(this.#dir, { recursive: true });
      const found: [string, Noted][] = [];
      for (const name of await readdir(this.#dir)) {
        const volumeId = name.slice(0, -".json".length);
        const file = join(this.#dir, name);
        const parsed = name.endsWith(".json") && VOLUME_ID_PATTERN.test(volumeId) ? noted.safeParse(parseJson(await readFile(file, "utf8").catch(() => ""))) : null;
        if (parsed?.success) found.push([volumeId, parsed.data]);
        else await rm(file, { force: true });
      }
      found.sort(([, a], [, b]) => a.used - b.used);
      for (const [volumeId, entry] of found) this.#noted.set(volumeId, entry);
    })();
    return this.#loaded;
  }
}

async function everyCached(cache: ChunkCache, chunks: string[]): Promise<boolean> {
  for (const hash of chunks) if (!(await cache.has(hash))) return false;
  return true;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
