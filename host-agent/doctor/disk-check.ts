// Doctor's free-disk check, a pure function of `df -Pk DIR` (POSIX format: sizes in KiB).
import { failureText, type CommandResult } from "../host-command.ts";
import { fail, ok, warn, type CheckResult } from "./check.ts";

const GIB = 1024 ** 3;

export const DF_ARGS = (dir: string) => ["-Pk", dir];

/** Free bytes from `df -Pk` output (header, then one line: filesystem, 1024-blocks, used, available, capacity, mount). */
export function parseDfAvailable(text: string): number | null {
  const line = text.split(/\r?\n/).slice(1).find((l) => l.trim() !== "");
  const match = line ? /^(.*?)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)%\s+(.+)$/.exec(line) : null;
  return match ? Number(match[4]) * 1024 : null;
}

/** Fails below `needBytes` (nothing can be written), warns below `wantBytes`. */
export function checkFreeDisk(name: string, dir: string, df: CommandResult, needBytes: number, wantBytes: number): CheckResult {
  if (!df.ok) {
    if (/no such file or directory/i.test(df.output)) return fail(name, `${dir} does not exist`, `mkdir -p ${dir} (install.sh creates it)`);
    return fail(name, `df ${dir} failed (${failureText(df)})`, "check that the folder is readable");
  }
  const free = parseDfAvailable(df.stdout);
  if (free === null) return fail(name, `df printed something unexpected for ${dir}`, "run df -Pk on it by hand");
  const detail = `${(free / GIB).toFixed(1)} GiB free in ${dir}`;
  if (free < needBytes) return fail(name, detail, `free space there, or point the folder at a larger disk (needs ${needBytes / GIB} GiB)`);
  if (free < wantBytes) return warn(name, detail, `models and instances need room: ${wantBytes / GIB} GiB or more is advised`);
  return ok(name, detail);
}

export const DISK_NEED_BYTES = 1 * GIB;
export const DISK_WANT_BYTES = 50 * GIB;
