// An SSH session's process on the local runtime: a shell, as the agent's user, on this machine (the
// "container" is a child process, so there is no other filesystem to enter), in the instance's data
// folder, which is `/data` there as in a container where the machine allows it (data-root.ts). A PTY
// comes from util-linux `script`, which needs no native module; the window size is set with `stty` on
// that terminal, which also signals the shell (SIGWINCH). Without `script` a session asking for a PTY
// runs without one.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { readFile, readlink } from "node:fs/promises";
import type { ExecProcess, ExecRequest } from "../runtime/runtime.ts";
import { atDataMount, dataMountWorks, type SessionBind } from "./data-root.ts";
import { DATA_PATH } from "./local-archive.ts";

const hasScript = spawnSync("script", ["--version"], { stdio: "ignore" }).status === 0;

/** A session in `dataDir`, seen at /data (and the instance's volumes at their paths) when it can be, its root built on `rootDir` (an empty folder). */
export function localSession(dataDir: string, rootDir: string, request: ExecRequest, volumes: SessionBind[] = []): ExecProcess {
  const shell = process.env.SHELL && process.env.SHELL.endsWith("sh") ? process.env.SHELL : "/bin/sh";
  const command = request.command ?? `exec ${shell} -i`;
  const pty = hasScript ? request.pty : null;
  const home = dataMountWorks ? DATA_PATH : dataDir;
  const env = { ...process.env, ...request.env, HOME: home, PWD: home };
  const argv = pty ? ["script", "-qfec", `stty cols ${pty.cols} rows ${pty.rows} 2>/dev/null; ${command}`, "/dev/null"] : ["/bin/sh", "-c", command];
  const [program, ...args] = dataMountWorks ? atDataMount(argv, dataDir, rootDir, volumes) : argv;
  // A process group of its own, so that ending the session ends what it started too.
  const child = spawn(program!, args, { cwd: dataDir, env, stdio: "pipe", detached: true });
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

/**
 * `script`'s child holds the terminal as its stdin: set that terminal's size. It is found below the
 * session's process (`script` itself, or `unshare` whose child became `script`), a few levels down.
 */
async function resizeTerminal(sessionPid: number, cols: number, rows: number): Promise<void> {
  let pids = [String(sessionPid)];
  for (let depth = 0; depth < 4 && pids.length > 0; depth++) {
    const children = await Promise.all(pids.map((pid) => readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "")));
    pids = children.flatMap((text) => text.trim().split(" ").filter(Boolean));
    for (const pid of pids) {
      // Seen from here, a session's own root puts its folder first: <root>/dev/pts/N, the machine's /dev/pts/N.
      const terminal = /\/dev\/pts\/\d+$/.exec((await readlink(`/proc/${pid}/fd/0`).catch(() => null)) ?? "")?.[0];
      if (terminal) return void spawn("stty", ["-F", terminal, "cols", String(cols), "rows", String(rows)], { stdio: "ignore" });
    }
  }
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
