// Child processes of the local stack: each in its own process group, so stopping one stops all it
// started (wrangler runs two workerd processes), and nothing outlives the stack.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
/** wrangler needs Node 22: the project's own (the node@22 devDependency), whatever runs this file. */
export const PROJECT_NODE = existsSync(join(ROOT, "node_modules/.bin/node")) ? join(ROOT, "node_modules/.bin/node") : process.execPath;

export interface Child {
  name: string;
  process: ChildProcess;
  /** Everything it printed, for error reports. */
  output: () => string;
  stop: () => Promise<void>;
}

export function startChild(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, echo: boolean): Child {
  const child = spawn(command, args, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
    if (echo) process.stderr.write(chunk.toString().replace(/^(?=.)/gm, `[${name}] `));
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  return {
    name,
    process: child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      signalGroup(child, "SIGTERM");
      const timer = setTimeout(() => signalGroup(child, "SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Already gone.
  }
}
