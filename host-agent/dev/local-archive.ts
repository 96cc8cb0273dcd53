// The local runtime's files API: its "container" has no filesystem of its own, only its data folder,
// which is the instance's /data; other paths do not exist. Archives are made and read by the host's
// `tar` (GNU tar refuses members that climb out with `..` or start with `/`).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { stat } from "node:fs/promises";
import { basename, dirname, join, posix } from "node:path";
import type { Readable } from "node:stream";

export const DATA_PATH = "/data";

/** Where container path `path` is in the data folder `dataDir`; null outside /data. */
export function localPathOf(dataDir: string, path: string): string | null {
  const normal = posix.normalize(path);
  if (normal !== DATA_PATH && !normal.startsWith(`${DATA_PATH}/`)) return null;
  return join(dataDir, normal.slice(DATA_PATH.length));
}

export async function readLocalArchive(dataDir: string, path: string): Promise<Readable | null> {
  const local = localPathOf(dataDir, path);
  if (local === null || !(await stat(local).catch(() => null))) return null;
  // /data itself is archived under the name the container knows it by, not its folder's.
  const isData = local.replace(/\/+$/, "") === dataDir;
  const args = isData ? ["-c", "-C", dataDir, "--transform", "s,^\\.,data,", "."] : ["-c", "-C", dirname(local), basename(local)];
  const child = spawn("tar", args, { stdio: ["ignore", "pipe", "ignore"] });
  return child.stdout;
}

export async function writeLocalArchive(dataDir: string, path: string, tar: Readable): Promise<boolean> {
  const local = localPathOf(dataDir, path);
  if (local === null || !(await stat(local).catch(() => null))?.isDirectory()) return false;
  const child = spawn("tar", ["-x", "-C", local, "--no-same-owner"], { stdio: ["pipe", "ignore", "pipe"] });
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  child.stdin.on("error", () => undefined);
  tar.pipe(child.stdin);
  const [code] = (await once(child, "close")) as [number | null];
  if (code !== 0) throw new Error(`the archive could not be extracted: ${errors.trim().split("\n")[0] ?? `tar exited with ${code}`}`);
  return true;
}
