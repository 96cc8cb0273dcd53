// `/data` in the local runtime's shells, as it is in a container and for `gpu cp`: a session runs in a
// mount namespace of its own (util-linux `unshare`, as the developer's own user: a user namespace, no
// root) whose root is the machine's own filesystem, every top-level folder bound in, plus `/data`, the
// instance's data folder. The machine is not hidden (it is the developer's, files outside /data are
// the real ones); only the path is added, and the instance's volumes at their paths (read-only ones
// read-only). Where user namespaces are not allowed (some distributions turn them off for
// unprivileged users), sessions run as before, in the data folder without `/data` or volumes.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DATA_PATH } from "./local-archive.ts";

// $1 the data folder, $2 an empty folder to build the root on (its mounts live in this namespace
// only), $3 how many volumes, then each volume's folder, path and "ro" or "rw", then the command, run
// in /data (DATA_PATH). Links at the top (/bin -> usr/bin) are copied, folders and files bound.
const BUILD_ROOT = `data=$1 root=$2 volumes=$3; shift 3
mount -t tmpfs -o mode=755 gpu-rental-root "$root" || exit 125
for entry in /* /.[!.]*; do
  { [ -e "$entry" ] || [ -L "$entry" ]; } || continue
  name=\${entry#/}
  [ "$name" = data ] && continue
  if [ -L "$entry" ]; then cp -P "$entry" "$root/$name"
  elif [ -d "$entry" ]; then mkdir "$root/$name" && mount --rbind "$entry" "$root/$name"
  else : > "$root/$name" && mount --bind "$entry" "$root/$name"; fi || exit 125
done
mkdir "$root/data" && mount --bind "$data" "$root/data" || exit 125
while [ "$volumes" -gt 0 ]; do
  mkdir -p "$root$2" && mount --bind "$1" "$root$2" || exit 125
  if [ "$3" = ro ]; then mount -o remount,bind,ro "$root$2" || exit 125; fi
  shift 3; volumes=$((volumes - 1))
done
exec chroot "$root" /bin/sh -c 'cd /data && exec "$@"' sh "$@"`;

const UNSHARE = ["unshare", "--user", "--map-current-user", "--mount", "--propagation", "private", "--fork"];

/** A folder of the machine's seen at `path` in a session. */
export interface SessionBind {
  dir: string;
  path: string;
  readOnly: boolean;
}

/** `argv` run with the data folder at /data and each of `binds` at its path (a parent before what it holds), on `rootDir` (an empty folder of the instance's). */
export function atDataMount(argv: string[], dataDir: string, rootDir: string, binds: SessionBind[] = []): string[] {
  const ordered = [...binds].sort((a, b) => a.path.length - b.path.length);
  const bindArgs = ordered.flatMap(({ dir, path, readOnly }) => [dir, path, readOnly ? "ro" : "rw"]);
  return [...UNSHARE, "/bin/sh", "-c", BUILD_ROOT, "sh", dataDir, rootDir, String(ordered.length), ...bindArgs, ...argv];
}

/** Whether this machine lets the agent's user do it: tried once, on folders of its own. */
export const dataMountWorks: boolean = (() => {
  const scratch = mkdtempSync(join(tmpdir(), "gpu-rental-data-root-"));
  try {
    const [data, root] = [join(scratch, "data"), join(scratch, "root")];
    for (const dir of [data, root]) mkdirSync(dir);
    const [command, ...args] = atDataMount(["test", "-d", DATA_PATH], data, root);
    return spawnSync(command!, args, { stdio: "ignore", timeout: 10_000 }).status === 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
})();
