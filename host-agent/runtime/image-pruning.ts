// Tenants' images do not fill the host: an image a `custom` launch pulled onto it is removed once no
// container has used it for the keep time (--image-keep-hours). Only those are: an image the host
// had before such a pull (the operator's, a template's) is never taken for a tenant's, and one a
// template's launch uses becomes the operator's. The images and when a container last used each
// are kept in a file of the agent's, so a restarted agent still removes what it pulled before.
// "Used" is what the engine says: a container, running or stopped, of any agent, made from the
// image; removing an image by name only untags it while another name holds it.
import { readFile, rename, writeFile } from "node:fs/promises";
import type Docker from "dockerode";
import { z } from "zod";
import { statusOf } from "./docker-pull.ts";

export const DEFAULT_IMAGE_KEEP_HOURS = 24;
const PRUNE_EVERY_MS = 10 * 60_000;

const pulledImages = z.record(z.string(), z.number());

export interface ImagePruningOptions {
  /** The file that keeps the images and when each was last used. */
  file: string;
  /** How long an image no container uses stays. */
  keepMs: number;
  now?: () => number;
}

export class ImagePruning {
  readonly #docker: Docker;
  readonly #file: string;
  readonly #keepMs: number;
  readonly #now: () => number;
  /** Image name → when a container last used it (ms); read from the file on first use. */
  #images: Promise<Map<string, number>> | null = null;
  /** The last write of the file: one at a time, each after the one before. */
  #written: Promise<void> = Promise.resolve();

  constructor(docker: Docker, { file, keepMs, now = Date.now }: ImagePruningOptions) {
    this.#docker = docker;
    this.#file = file;
    this.#keepMs = keepMs;
    this.#now = now;
  }

  /** A `custom` launch is about to pull `image`: a tenant's from now on, unless the host has it as another's. */
  async willPull(image: string): Promise<void> {
    const images = await this.#read();
    if (!images.has(image) && (await this.#present(image))) return;
    images.set(image, this.#now());
    await this.#write(images);
  }

  /** A template's launch uses `image`: the operator's, never removed. */
  async templateUses(image: string): Promise<void> {
    const images = await this.#read();
    if (images.delete(image)) await this.#write(images);
  }

  /** Removes the tenants' images no container has used for the keep time; resolves with their names. */
  async prune(): Promise<string[]> {
    const images = await this.#read();
    if (images.size === 0) return [];
    const inUse = new Set((await this.#docker.listContainers({ all: true })).map((container) => container.ImageID));
    const now = this.#now();
    const removed: string[] = [];
    for (const [image, lastUsedMs] of images) {
      const id = await this.#idOf(image);
      if (id === null) {
        images.delete(image);
      } else if (inUse.has(id)) {
        images.set(image, now);
      } else if (now - lastUsedMs >= this.#keepMs) {
        // 409: a container made from it since the listing.
        const gone = await this.#docker.getImage(image).remove().then(() => true, (error: unknown) => (statusOf(error) === 409 ? false : Promise.reject(error)));
        if (gone) {
          images.delete(image);
          removed.push(image);
        } else {
          images.set(image, now);
        }
      }
    }
    await this.#write(images);
    return removed;
  }

  /** Prunes every few minutes until the function returned is called. */
  start(onPruned: (removed: string[]) => void, onError: (error: unknown) => void): () => void {
    const timer = setInterval(() => void this.prune().then((removed) => removed.length > 0 && onPruned(removed), onError), PRUNE_EVERY_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  async #present(image: string): Promise<boolean> {
    return (await this.#idOf(image)) !== null;
  }

  /** The image's id on the engine; null when the engine has no image of that name. */
  async #idOf(image: string): Promise<string | null> {
    return this.#docker.getImage(image).inspect().then(
      (info) => info.Id,
      (error: unknown) => (statusOf(error) === 404 ? null : Promise.reject(error)),
    );
  }

  /** The file's images; none when there is no file or it cannot be read as one (what it named then stays on the host). */
  #read(): Promise<Map<string, number>> {
    this.#images ??= readFile(this.#file, "utf8").then(
      (text) => {
        const parsed = pulledImages.safeParse(JSON.parse(text));
        return new Map(parsed.success ? Object.entries(parsed.data) : []);
      },
    ).catch(() => new Map<string, number>());
    return this.#images;
  }

  /** Written whole, then renamed over the last: a crash mid-write leaves the last whole file. */
  #write(images: Map<string, number>): Promise<void> {
    const next = `${this.#file}.next`;
    const text = JSON.stringify(Object.fromEntries(images));
    this.#written = this.#written.catch(() => undefined).then(async () => {
      await writeFile(next, text, { mode: 0o600 });
      await rename(next, this.#file);
    });
    return this.#written;
  }
}
