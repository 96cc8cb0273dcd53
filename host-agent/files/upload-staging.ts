// Resumable uploads staged on the host: each part of an upload is appended to a file of the agent's
// own, `<root>/<instance id>/<upload id>` (both ids are checked patterns, so the path is the agent's
// choice alone: nothing inside the container is looked at until the file is written there whole).
// This agent is the authority for how much of an upload is staged: the file's size says it, so a
// client resumes from it after a part broke off, and an agent restart keeps it. Staging is bounded
// by the instance's disk, by a cap on what all instances' uploads stage together on the host, and by
// the free space of the disk it is on (a part is refused while less than a reserve is free, checked
// again as it arrives); it is removed once the file is written, when the instance is destroyed, and
// when it has been untouched for an hour. A written upload leaves a marker of its size,
// `<upload id>.written` (an upload id has no dot), for an hour: a client that lost the final part's
// answer and sends it again learns that the file is whole, instead of starting the upload afresh.
import { createWriteStream } from "node:fs";
import { mkdir, readdir, readFile, rm, stat, statfs, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Writable, type Readable } from "node:stream";

/** An upload untouched this long is forgotten. */
export const UPLOAD_IDLE_MS = 60 * 60_000;
const SWEEP_EVERY_MS = 5 * 60_000;
const WRITTEN = ".written";
/** What all instances' uploads may stage together on a host unless its operator says otherwise (--upload-staging-gb). */
export const DEFAULT_STAGING_GB = 100;
/** Parts are refused while the staging disk has less free than this: the host's engine, logs and instances need it. */
export const MIN_FREE_BYTES = 4 * 2 ** 30;
/** A part arriving asks the disk's free space again after this many bytes, so parts in parallel cannot run far into the reserve. */
const FREE_CHECK_BYTES = 8 * 2 ** 20;

export interface StagingOptions {
  /** Bytes all uploads may stage together (DEFAULT_STAGING_GB). */
  hostBytes?: number;
  /** Free bytes the staging disk keeps (MIN_FREE_BYTES). */
  minFreeBytes?: number;
  now?: () => number;
}

export interface UploadKey {
  instanceId: string;
  uploadId: string;
}

/**
 * How a part went: staged (the size now), refused for its offset, for the instance's room or for the
 * host's (`no_room`: the staged size, what arrived of the part included), cut short by its sender, or
 * not written here.
 */
export type PartOutcome =
  | { kind: "staged"; size: number }
  | { kind: "wrong_offset"; size: number }
  | { kind: "busy" }
  | { kind: "too_large"; maxBytes: number }
  | { kind: "no_room"; size: number; reason: string }
  | { kind: "cut_short"; size: number }
  | { kind: "written"; size: number }
  | { kind: "failed"; reason: string };

/** The staged file of an upload, held until `release` (no other part may touch it meanwhile). */
export interface StagedFile {
  file: string;
  size: number;
  release(): void;
}

class TooLarge extends Error {}
class NoRoom extends Error {}

export class UploadStaging {
  readonly #root: string;
  readonly #hostBytes: number;
  readonly #minFreeBytes: number;
  readonly #now: () => number;
  /** Uploads a part is being appended to, or being written into the container from. */
  readonly #busy = new Set<string>();
  /**
   * Bytes staged on the host, counted once from the folder and then kept as parts arrive and
   * uploads go: parts arriving in parallel each see what the others have staged so far.
   */
  #hostStaged: Promise<number> | null = null;

  constructor(root: string, { hostBytes = DEFAULT_STAGING_GB * 2 ** 30, minFreeBytes = MIN_FREE_BYTES, now = Date.now }: StagingOptions = {}) {
    this.#root = root;
    this.#hostBytes = hostBytes;
    this.#minFreeBytes = minFreeBytes;
    this.#now = now;
  }

  /** Bytes staged for the upload (0 when there is none). */
  async size(key: UploadKey): Promise<number> {
    return (await stat(this.#file(key)).catch(() => null))?.size ?? 0;
  }

  /**
   * Appends `body` to the upload when `offset` is its staged size, the instance's uploads staging at
   * most `maxBytes` together, and the host's within its cap and its disk's free space. A body
   * refused (busy, wrong offset, too large, no room) is left unread for the caller to drain; one that
   * closes before its end, or finds no room on the host midway, keeps what arrived, which is what the
   * next part resumes from.
   */
  async append(key: UploadKey, offset: number, body: Readable, maxBytes: number): Promise<PartOutcome> {
    const held = this.#hold(key);
    if (!held) return { kind: "busy" };
    try {
      const written = await this.#writtenSize(key);
      if (written !== null) return { kind: "written", size: written };
      const size = await this.size(key);
      if (offset !== size) return { kind: "wrong_offset", size };
      // The room is the instance's, shared by all its uploads (one part of each at a time: two parts of
      // different uploads starting together may each count on the same room, by at most their size).
      const room = maxBytes - (await this.#stagedBesides(key));
      await mkdir(join(this.#root, key.instanceId), { recursive: true, mode: 0o700 });
      const noRoom = await this.#hostRefusal(1, true);
      if (noRoom) return { kind: "no_room", size, reason: noRoom };
      // Its sender went away while this was asked (its close has been and gone): nothing to wait for.
      if (body.destroyed) return { kind: "cut_short", size };
      const file = createWriteStream(this.#file(key), { flags: "a", mode: 0o600 });
      let staged = size;
      let sinceFreeCheck = 0;
      let refusal = "";
      // A write that fails (the host's disk full) fails the sink below, which says why.
      file.on("error", (error) => sink.destroy(error));
      const sink = new Writable({
        write: (chunk: Buffer, _encoding, done) => {
          if (staged + chunk.byteLength > room) return done(new TooLarge());
          sinceFreeCheck += chunk.byteLength;
          const checkFree = sinceFreeCheck >= FREE_CHECK_BYTES;
          if (checkFree) sinceFreeCheck = 0;
          this.#hostRefusal(chunk.byteLength, checkFree).then((why) => {
            if (why) {
              refusal = why;
              return done(new NoRoom());
            }
            this.#count(chunk.byteLength);
            staged += chunk.byteLength;
            file.write(chunk, done);
          }, done);
        },
        final: (done) => file.end(done),
      });
      const outcome = await new Promise<PartOutcome>((resolve) => {
        let cut = false;
        sink.once("finish", () => resolve(cut ? { kind: "cut_short", size: staged } : { kind: "staged", size: staged }));
        sink.on("error", (error) => {
          body.unpipe(sink);
          file.end();
          if (error instanceof TooLarge) resolve({ kind: "too_large", maxBytes });
          else if (error instanceof NoRoom) resolve({ kind: "no_room", size: staged, reason: refusal });
          else resolve({ kind: "failed", reason: error.message });
        });
        // A sender gone before its end: what arrived stays staged.
        body.once("close", () => {
          if (body.readableEnded || sink.destroyed) return;
          cut = true;
          body.unpipe(sink);
          sink.end();
        });
        body.pipe(sink);
      });
      await new Promise((resolve) => (file.closed ? resolve(null) : file.once("close", () => resolve(null))));
      // Past the room it can never be whole: nothing of it is kept.
      if (outcome.kind === "too_large") await this.#remove(key);
      return outcome;
    } finally {
      held();
    }
  }

  /** The staged file for writing into the container; null while another part holds the upload. */
  async take(key: UploadKey): Promise<StagedFile | null> {
    const release = this.#hold(key);
    if (!release) return null;
    return { file: this.#file(key), size: await this.size(key), release };
  }

  /** The upload's file is in the instance, `size` bytes: its staging goes, a marker of its size stays for an hour. */
  async written(key: UploadKey, size: number): Promise<void> {
    // Without its marker (the host's disk full), a final part sent again only starts the upload afresh.
    await writeFile(this.#file(key) + WRITTEN, String(size), { mode: 0o600 }).catch(() => undefined);
    await this.#remove(key);
  }

  /** Every upload to `instanceId` (it was destroyed). */
  async removeInstance(instanceId: string): Promise<void> {
    for (const uploadId of await readdir(join(this.#root, instanceId)).catch(() => [])) {
      if (!uploadId.endsWith(WRITTEN)) await this.#remove({ instanceId, uploadId });
    }
    await rm(join(this.#root, instanceId), { recursive: true, force: true });
  }

  /** Removes the uploads untouched for UPLOAD_IDLE_MS; resolves with how many it removed. */
  async sweep(): Promise<number> {
    let removed = 0;
    for (const instanceId of await readdir(this.#root).catch(() => [])) {
      for (const uploadId of await readdir(join(this.#root, instanceId)).catch(() => [])) {
        const key = { instanceId, uploadId };
        const touched = (await stat(this.#file(key)).catch(() => null))?.mtimeMs;
        if (touched === undefined || this.#now() - touched < UPLOAD_IDLE_MS || this.#busy.has(this.#name(key))) continue;
        await this.#remove(key);
        removed++;
      }
    }
    // Counted again from the folder while no part arrives: a part whose write the disk refused was counted whole.
    if (this.#busy.size === 0) this.#hostStaged = this.#countStaged();
    return removed;
  }

  /** Sweeps every few minutes until the function returned is called. */
  startSweeping(onError: (error: unknown) => void): () => void {
    const timer = setInterval(() => void this.sweep().catch(onError), SWEEP_EVERY_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * Why the host takes no `bytes` more now ("" when it does): its uploads' cap, or (when `checkFree`)
   * its disk's free space under the reserve.
   */
  async #hostRefusal(bytes: number, checkFree: boolean): Promise<string> {
    if (checkFree) {
      const disk = await statfs(this.#root);
      const free = disk.bavail * disk.bsize;
      if (free - bytes < this.#minFreeBytes) return `its disk has ${free} bytes free, and it keeps ${this.#minFreeBytes} free`;
    }
    const staged = await this.#staged();
    if (staged + bytes > this.#hostBytes) return `its uploads stage ${staged} bytes together, and it takes at most ${this.#hostBytes}`;
    return "";
  }

  /** Bytes staged on the host, counted from the folder the first time. */
  #staged(): Promise<number> {
    this.#hostStaged ??= this.#countStaged();
    return this.#hostStaged;
  }

  /** `bytes` more staged on the host (fewer when negative). */
  #count(bytes: number): void {
    if (bytes !== 0) this.#hostStaged = this.#staged().then((staged) => Math.max(0, staged + bytes));
  }

  async #countStaged(): Promise<number> {
    let total = 0;
    for (const instanceId of await readdir(this.#root).catch(() => [])) {
      for (const uploadId of await readdir(join(this.#root, instanceId)).catch(() => [])) {
        if (!uploadId.endsWith(WRITTEN)) total += await this.size({ instanceId, uploadId });
      }
    }
    return total;
  }

  /** Bytes staged for the instance's other uploads. */
  async #stagedBesides(key: UploadKey): Promise<number> {
    let total = 0;
    for (const uploadId of await readdir(join(this.#root, key.instanceId)).catch(() => [])) {
      if (uploadId !== key.uploadId && !uploadId.endsWith(WRITTEN)) total += await this.size({ instanceId: key.instanceId, uploadId });
    }
    return total;
  }

  /** The size of the file the upload wrote into the instance, within the last hour; null when it has not. */
  async #writtenSize(key: UploadKey): Promise<number | null> {
    const marker = await readFile(this.#file(key) + WRITTEN, "utf8").catch(() => null);
    return marker !== null && /^\d+$/.test(marker) ? Number(marker) : null;
  }

  /** Marks the upload busy; the function returned frees it. Null when it is busy already. */
  #hold(key: UploadKey): (() => void) | null {
    const name = this.#name(key);
    if (this.#busy.has(name)) return null;
    this.#busy.add(name);
    return () => this.#busy.delete(name);
  }

  async #remove(key: UploadKey): Promise<void> {
    // Counted before the file goes (the first count reads the folder), so its bytes come off once.
    await this.#staged();
    const size = key.uploadId.endsWith(WRITTEN) ? 0 : await this.size(key);
    await rm(this.#file(key), { force: true });
    this.#count(-size);
  }

  #name = (key: UploadKey) => `${key.instanceId}/${key.uploadId}`;
  #file = (key: UploadKey) => join(this.#root, key.instanceId, key.uploadId);
}
