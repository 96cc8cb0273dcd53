// The local runtime's files API: its "container" has no filesystem of its own, only its data folder,
// which is the instance's /data, and its volumes' working copies, each at its mount's path; other
// paths do not exist. Archives are made and read by the host's `tar` (GNU tar refuses members that
// climb out with `..` or start with `/`).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { stat } from "node:fs/promises";
import { basename, dirname, join, posix } from "node:path";
import type { Readable } from "node:stream";

export const DATA_PATH = "/data";

/** A folder of the machine's that the instance sees at `path` (its data folder at /data, a volume's working copy at its mount's path). */
export interface LocalRoot {
  path: string;
  dir: string;
  /** A read-only volume: nothing is written into it. */
  readOnly?: boolean;
}

/** Where container path `path` is on this machine, in the deepest root holding it; null outside every root. */
export function localPathOf(roots: LocalRoot[], path: string): { local: string; root: LocalRoot } | null {
  const normal = posix.normalize(path).replace(/(.)\/+$/, "$1");
  const holding = roots.filter((root) => normal === root.path || normal.startsWith(`${root.path}/`));
  const root = holding.sort((a, b) => b.path.length - a.path.length)[0];
  return root ? { local: join(root.dir, normal.slice(root.path.length)), root } : null;
}

export async function readLocalArchive(roots: LocalRoot[], path: string): Promise<Readable | null> {
  const found = localPathOf(roots, path);
  if (found === null || !(await stat(found.local).catch(() => null))) return null;
  const { local, root } = found;
  // A root itself is archived under the name the container knows it by (data, workspace), not its folder's.
  const isRoot = local.replace(/\/+$/, "") === root.dir;
  const args = isRoot ? ["-c", "-C", root.dir, "--transform", `s,^\\.,${posix.basename(root.path).replace(/[\\,&]/g, "\\$&")},`, "."] : ["-c", "-C", dirname(local), basename(local)];
  const child = spawn("tar", args, { stdio: ["ignore", "pipe", "ignore"] });
  return child.stdout;
}

export async function writeLocalArchive(roots: LocalRoot[], path: string, tar: Readable): Promise<boolean> {
  const found = localPathOf(roots, path);
  if (found === null || !(await stat(found.local).catch(() => null))?.isDirectory()) return false;
  if (found.root.readOnly) throw new Error(`${path} is in a volume mounted read-only at ${found.root.path}`);
  const { local } = found;
  const child = spawn("tar", ["-x", "-C", local, "--no-same-owner"], { stdio: ["pipe", "ignore", "pipe"] });
  let errors = "";
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
  child.stdin.on("error", () => undefined);
  tar.pipe(child.stdin);
  const [code] = (await once(child, "close")) as [number | null];
  if (code !== 0) throw new Error(`the archive could not be extracted: ${errors.trim().split("\n")[0] ?? `tar exited with ${code}`}`);
  return true;
}
