// A directory up whatever its size. One tar request carries at most 512 MB, so a directory with more
// goes as several: its folders and its small files packed in tars of at most `partBytes` of file
// data each (the folders in the first, so every later file has its folder), then each file over
// `partBytes` as a resumable upload of its own (upload-in-parts.ts) into the folder the tars made.
// A directory that fits one tar goes in one, as it always did.
import { lstat, readdir } from "node:fs/promises";
import { join, posix } from "node:path";
import type { Transform } from "node:stream";
import { CappedBody } from "./streamed-put.ts";
import { renamed } from "./tar-pack.ts";
import { putTar } from "./tar-upload.ts";
import { MIN_PART_BYTES, PART_BYTES, uploadInParts } from "./upload-in-parts.ts";

/** What goes in which request: `tars`, each a list of names relative to the directory's parent; `big`, the files sent in parts. */
export interface DirectoryPlan {
  tars: string[][];
  big: { name: string; size: number }[];
}

/** Plans `name` in `parent`; a directory of at most `partBytes` of files, none bigger, is one tar, as it always was. */
export async function planDirectory(parent: string, name: string, partBytes: number): Promise<DirectoryPlan> {
  const folders: string[] = [];
  const small: { name: string; size: number }[] = [];
  const big: { name: string; size: number }[] = [];
  const walk = async (relative: string) => {
    folders.push(relative);
    for (const entry of (await readdir(join(parent, relative), { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const child = posix.join(relative, entry.name);
      if (entry.isDirectory()) await walk(child);
      else {
        // Symbolic links and other non-files go in a tar as what they are.
        const { size } = await lstat(join(parent, child));
        (entry.isFile() && size > partBytes ? big : small).push({ name: child, size: entry.isFile() ? size : 0 });
      }
    }
  };
  await walk(name);
  const tars: string[][] = [[...folders]];
  let filled = 0;
  for (const file of small) {
    if (filled + file.size > partBytes && filled > 0) {
      tars.push([]);
      filled = 0;
    }
    tars.at(-1)!.push(file.name);
    filled += file.size;
  }
  return { tars, big };
}

export interface DirectoryUpload {
  /** The files URL of the instance or volume, without a query. */
  filesUrl: string;
  apiKey: string;
  /** The directory that receives the local directory (as `<to>/<as>`). */
  to: string;
  parent: string;
  name: string;
  /** The directory's name in `to` (`name` unless given). */
  as?: string;
  /** PART_BYTES unless given. */
  partBytes?: number;
  /** A big file's parts are whole multiples of this (VOLUME_PART_UNIT for a volume); 1 unless given. */
  partUnit?: number;
  /** FIFOs go as what they are unless false (a volume stores none). */
  fifos?: boolean;
  /** The progress line: counts a tar's bytes as they go through `counter`, a big file's as they are `set`; told of names left out. */
  transfer: { counter(): Transform; readonly bytes: number; set(bytes: number): void; skipped(name: string, what: string): void };
}

/**
 * Uploads the directory as planned. When something in front of the service refuses a tar as too
 * large, the directory is planned again with half the size and its tars sent again (each extracts
 * over what an earlier one wrote), so files between the two sizes go in parts.
 */
export async function uploadDirectory(upload: DirectoryUpload): Promise<void> {
  let partBytes = upload.partBytes ?? PART_BYTES;
  const start = upload.transfer.bytes;
  for (;;) {
    const plan = await planDirectory(upload.parent, upload.name, partBytes);
    try {
      await sendTars(upload, plan.tars);
    } catch (error) {
      if (!(error instanceof CappedBody) || partBytes <= MIN_PART_BYTES) throw error;
      partBytes = Math.max(MIN_PART_BYTES, Math.floor(partBytes / 2));
      upload.transfer.set(start);
      continue;
    }
    for (const file of plan.big) {
      const before = upload.transfer.bytes;
      await uploadInParts({
        filesUrl: upload.filesUrl, apiKey: upload.apiKey, remotePath: posix.join(upload.to, renamed(file.name, upload.name, upload.as ?? upload.name)), local: join(upload.parent, file.name),
        size: file.size, partBytes, partUnit: upload.partUnit, progress: (bytes) => upload.transfer.set(before + bytes),
      });
    }
    return;
  }
}

async function sendTars(upload: DirectoryUpload, tars: string[][]): Promise<void> {
  const url = `${upload.filesUrl}?${new URLSearchParams({ path: upload.to })}`;
  for (const names of tars) {
    await putTar({
      url, apiKey: upload.apiKey, parent: upload.parent, names, given: upload.name, as: upload.as, fifos: upload.fifos, counter: upload.transfer.counter(), skipped: upload.transfer.skipped,
    });
  }
}
