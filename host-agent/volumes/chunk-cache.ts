// Volumes' chunks kept on this host, `<dir>/<sha256 hex>`, so a restore fetches only what the host
// lacks and a volume saved here can be restored here again with nothing to fetch. Bounded by bytes:
// the least recently used chunks go first, except those a restore in progress still needs (pinned).
// A chunk is written under a temporary name and renamed, so a crash never leaves a partial chunk
// under its hash; what is here was verified (a download) or hashed (a save) before it was put.
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** What the chunks of all volumes may take on a host unless its operator says otherwise (--volume-cache-gb). */
export const DEFAULT_VOLUME_CACHE_GB = 50;

const CHUNK_FILE = /^[0-9a-f]{64}$/;

export class ChunkCache {
  readonly #dir: string;
  readonly #maxBytes: number;
  /** Chunk sizes by hash, least recently used first (a Map keeps insertion order; a use re-inserts). */
  readonly #chunks = new Map<string, number>();
  /** How many restores in progress need each chunk. */
  readonly #pins = new Map<string, number>();
  #bytes = 0;
  #loaded: Promise<void> | null = null;

  constructor(dir: string, maxBytes: number) {
    this.#dir = dir;
    this.#maxBytes = maxBytes;
  }

  /** Bytes the cached chunks take. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Whether the chunk is here (as far as this cache knows: a chunk removed behind its back is fetched again). */
  async has(hash: string): Promise<boolean> {
    await this.#load();
    return this.#chunks.has(hash);
  }

  /** The chunk's bytes, marking it used; null when it is not here. */
  async read(hash: string): Promise<Buffer | null> {
    await this.#load();
    const size = this.#chunks.get(hash);
    if (size === undefined) return null;
    const bytes = await readFile(join(this.#dir, hash)).catch(() => null);
    if (bytes === null || bytes.length !== size) {
      this.#forget(hash);
      return null;
    }
    this.#touch(hash, size);
    // The order survives a restart of the agent as the files' mtimes.
    const now = new Date();
    await utimes(join(this.#dir, hash), now, now).catch(() => {});
    return bytes;
  }

  /**
   * Keeps a chunk whose bytes match its hash, evicting the least recently used chunks no restore
   * needs to stay within the bound; a chunk that cannot fit (what is left is pinned, or the disk
   * refused it) is not kept, which costs only a later fetch.
   */
  async put(hash: string, bytes: Uint8Array): Promise<void> {
    await this.#load();
    if (this.#chunks.has(hash)) {
      this.#touch(hash, bytes.length);
      return;
    }
    if (!this.#makeRoom(bytes.length)) return;
    this.#chunks.set(hash, bytes.length);
    this.#bytes += bytes.length;
    const temporary = join(this.#dir, `${hash}.${randomBytes(6).toString("hex")}.tmp`);
    try {
      await writeFile(temporary, bytes);
      await rename(temporary, join(this.#dir, hash));
    } catch {
      this.#forget(hash);
      await rm(temporary, { force: true });
    }
  }

  /** Keeps these chunks from eviction until the returned release is called (a restore's chunks while it runs). */
  pin(hashes: Iterable<string>): () => void {
    const pinned = [...new Set(hashes)];
    for (const hash of pinned) this.#pins.set(hash, (this.#pins.get(hash) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const hash of pinned) {
        const count = this.#pins.get(hash)! - 1;
        if (count === 0) this.#pins.delete(hash);
        else this.#pins.set(hash, count);
      }
    };
  }

  /** Evicts unpinned chunks, least recently used first, until `incoming` more bytes fit; false if they cannot. */
  #makeRoom(incoming: number): boolean {
    if (incoming > this.#maxBytes) return false;
    const victims: string[] = [];
    let bytes = this.#bytes;
    for (const [hash, size] of this.#chunks) {
      if (bytes + incoming <= this.#maxBytes) break;
      if (this.#pins.has(hash)) continue;
      victims.push(hash);
      bytes -= size;
    }
    if (bytes + incoming > this.#maxBytes) return false;
    for (const hash of victims) {
      this.#forget(hash);
      void rm(join(this.#dir, hash), { force: true });
    }
    return true;
  }

  #touch(hash: string, size: number): void {
    this.#chunks.delete(hash);
    this.#chunks.set(hash, size);
  }

  #forget(hash: string): void {
    const size = this.#chunks.get(hash);
    if (size === undefined) return;
    this.#chunks.delete(hash);
    this.#bytes -= size;
  }

  /** Reads what is on disk once: chunks by their mtimes (oldest first), temporary files of a crashed put removed. */
  #load(): Promise<void> {
    this.#loaded ??= (async () => {
      await mkdir(this.#dir, { recursive: true });
      const found: { hash: string; size: number; usedMs: number }[] = [];
      for (const name of await readdir(this.#dir)) {
        const file = join(this.#dir, name);
        if (!CHUNK_FILE.test(name)) {
          if (name.endsWith(".tmp")) await rm(file, { force: true });
          continue;
        }
        const info = await stat(file).catch(() => null);
        if (info?.isFile()) found.push({ hash: name, size: info.size, usedMs: info.mtimeMs });
      }
      found.sort((a, b) => a.usedMs - b.usedMs);
      for (const { hash, size } of found) {
        this.#chunks.set(hash, size);
        this.#bytes += size;
      }
      // The bound may have been lowered since these were kept.
      this.#makeRoom(0);
    })();
    return this.#loaded;
  }
}
