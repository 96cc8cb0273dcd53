// Whether this engine can enforce disk_gb, asked the one way that is sure: creating (never starting)
// a container with a size limit on its writable layer, from an empty image imported for the purpose,
// then removing both. overlay2 needs xfs mounted with pquota for it; Docker and podman refuse
// the limit at create time on anything else, and say why.
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import type Docker from "dockerode";
import { errorMessage } from "../log.ts";

export type DiskLimits =
  | { enforced: true }
  | { enforced: false; reason: string }
  /** The probe itself failed (the engine down, say): the first create finds out instead. */
  | { enforced: null; reason: string };

/** An empty tar archive: two zero blocks. */
const EMPTY_TAR = Buffer.alloc(1024);

export async function probeDiskLimits(docker: Docker): Promise<DiskLimits> {
  let image: string | null = null;
  const name = `gpu-rental-disk-probe-${randomBytes(4).toString("hex")}`;
  try {
    image = await importEmptyImage(docker);
    await docker.createContainer({ name, Image: image, Cmd: ["/never-started"], HostConfig: { StorageOpt: { size: "1G" } } });
    return { enforced: true };
  } catch (error) {
    if (refusesStorageLimit(error)) return { enforced: false, reason: engineErrorText(error) };
    return { enforced: null, reason: engineErrorText(error) };
  } finally {
    await docker.getContainer(name).remove({ force: true }).catch(() => undefined);
    if (image) await docker.getImage(image).remove({ force: true }).catch(() => undefined);
  }
}

/** The engine's answer when the storage driver cannot apply `StorageOpt: { size }` (Docker and podman word it alike). */
export function refusesStorageLimit(error: unknown): boolean {
  return /storage-opt|storage opt/i.test(engineErrorText(error));
}

/** The engine's own message, from `--storage-opt` on when it names it (what is wrong, without podman's layer ids). */
export function engineErrorText(error: unknown): string {
  const json = (error as { json?: { message?: unknown } } | null)?.json;
  const message = typeof json?.message === "string" ? json.message : errorMessage(error);
  return message.replace(/^.*?(--storage-opt)/, "$1");
}

/** Imports the empty archive as an image; its id. */
async function importEmptyImage(docker: Docker): Promise<string> {
  const stream = (await docker.importImage(Readable.from([EMPTY_TAR]))) as NodeJS.ReadableStream;
  let text = "";
  for await (const chunk of stream) text += chunk.toString();
  const id = /sha256:[0-9a-f]{64}/.exec(text)?.[0];
  if (!id) throw new Error(`the engine imported no image: ${text.slice(0, 200)}`);
  return id;
}
