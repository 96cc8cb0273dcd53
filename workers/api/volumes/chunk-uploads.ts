// Files cut into a volume's chunks as their bytes arrive: fixed offsets of VOLUME_CHUNK_BYTES, each
// named by its SHA-256 and stored through the binding unless the volume already holds it (the base
// version names it, or this upload stored it already). A few chunks are stored while the next is read:
// each is held whole (R2 is given its length and hash), so the Worker holds at most a few chunks.
import { chunkName, VOLUME_CHUNK_BYTES } from "../../../protocol/volumes.ts";
import { objectKey, type VolumePlace } from "./volume-objects.ts";

/** Chunks being stored at once, besides the one being read: 4 × 8 MiB of the Worker's 128 MB. */
const PUTS_AT_ONCE = 4;

export class ChunkUploads {
  /** The bytes of the chunks this upload stored. */
  bytesSent = 0;
  private readonly place: VolumePlace;
  private readonly known: Set<string>;
  private readonly storing = new Set<Promise<void>>();
  private failure: { error: unknown } | null = null;

  constructor(place: VolumePlace, known: Iterable<string>) {
    this.place = place;
    this.known = new Set(known);
  }

  /** The chunks of a file of `size` bytes whose bytes `body` gives, in order; stored or being stored. */
  async file(body: AsyncIterable<Uint8Array>, size: number): Promise<string[]> {
    const hashes: string[] = [];
    let left = size;
    let chunk = new Uint8Array(Math.min(left, VOLUME_CHUNK_BYTES));
    let filled = 0;
    for await (const piece of body) {
      for (let at = 0; at < piece.byteLength; ) {
        const take = Math.min(piece.byteLength - at, chunk.byteLength - filled);
        chunk.set(piece.subarray(at, at + take), filled);
        filled += take;
        at += take;
        if (filled === chunk.byteLength) {
          hashes.push(await this.store(chunk));
          left -= filled;
          chunk = new Uint8Array(Math.min(left, VOLUME_CHUNK_BYTES));
          filled = 0;
        }
      }
    }
    return hashes;
  }

  /** Waits for every chunk being stored; throws the first store that failed. */
  async settled(): Promise<void> {
    await Promise.all(this.storing);
    this.throwIfFailed();
  }

  private async store(bytes: Uint8Array): Promise<string> {
    this.throwIfFailed();
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    const hash = Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
    if (this.known.has(hash)) return hash;
    this.known.add(hash);
    while (this.storing.size >= PUTS_AT_ONCE) await Promise.race(this.storing);
    this.throwIfFailed();
    const put = this.place.bucket
      .put(objectKey(this.place, chunkName(hash)), bytes, { sha256: hash })
      .then(() => {
        this.bytesSent += bytes.byteLength;
      })
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => this.storing.delete(put));
    this.storing.add(put);
    return hash;
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}
