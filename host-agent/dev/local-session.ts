// An SSH session's process on the local runtime: a shell in the instance's data folder (the "container"
// is a child process, so there is no other filesystem to enter). A PTY comes from util-linux `script`,
// which needs no native module; the window size is set with `stty` on that terminal, which also
// signals the shell (SIGWINCH). Without `script` a session asking for a PTY runs without one.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { readFile, readlink } from "node:fs/promises";
import type { ExecProcess, ExecRequest } from "../runtime/runtime.ts";

const hasScript = spawnSync("script", ["--version"], { stdio: "ignore" }).status === 0;

export function localSession(cwd: string, request: ExecRequest): ExecProcess {
  const shell = process.env.SHELL && process.env.SHELL.endsWith("sh") ? process.env.SHELL : "/bin/sh";
  const command = request.command ?? `exec ${shell} -i`;
  const pty = hasScript ? request.pty : null;
  const env = { ...process.env, ...request.env, HOME: cwd, PWD: cwd };
  // A process group of its own, so that ending the session ends what it started too.
  const child = pty
    ? spawn("script", ["-qfec", `stty cols ${pty.cols} rows ${pty.rows} 2>/dev/null; ${command}`, "/dev/null"], { cwd, env, stdio: "pipe", detached: true })
    : spawn("/bin/sh", ["-c", command], { cwd, env, stdio: "pipe", detached: true });
  const exit = (async () => {
    const [code] = (await once(child, "close").catch(() => [null])) as [number | null];
    return code;
  })();
  child.stdin.on("error", () => undefined);
  return {
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: pty ? null : child.stderr,
    resize: (cols, rows) => {
      if (pty && child.pid !== undefined) void resizeTerminal(child.pid, cols, rows);
    },
    exit,
    kill: () => endGroup(child.pid),
  };
}

/** `script`'s child holds the terminal as its stdin: set that terminal's size. */
async function resizeTerminal(scriptPid: number, cols: number, rows: number): Promise<void> {
  const children = await readFile(`/proc/${scriptPid}/task/${scriptPid}/children`, "utf8").catch(() => "");
  const shellPid = children.trim().split(" ")[0];
  if (!shellPid) return;
  const terminal = await readlink(`/proc/${shellPid}/fd/0`).catch(() => null);
  if (terminal?.startsWith("/dev/pts/")) spawn("stty", ["-F", terminal, "cols", String(cols), "rows", String(rows)], { stdio: "ignore" });
}

/**
 * SIGTERM to the session's process group: `script` ignores SIGHUP but ends on SIGTERM, and its
 * terminal's hangup then ends the shell on it; without a PTY the shell and what it runs end.
 */
function endGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGTERM");
  } catch {
    // Already gone.
  }
}
