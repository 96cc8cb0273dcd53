// Runs the `gpu` CLI as a subprocess, as a user would: in a pipe, on a terminal (a real pty by
// util-linux `script`), or long-running (forward, events --follow) with its output read line by line.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

export const ROOT = resolve(import.meta.dirname, "../../..");
const GPU = join(ROOT, "cli/gpu.ts");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** An environment with nothing of the developer's: no GPU_* variables, a config folder of its own. */
export function cliEnv(configHome: string, vars: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: configHome, XDG_CONFIG_HOME: configHome, NO_COLOR: "1" };
  for (const [name, value] of Object.entries(vars)) if (value !== undefined) env[name] = value;
  return env;
}

export async function runGpu(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<CliResult> {
  return collect(spawn(process.execPath, [GPU, ...args], { env, cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] }), input);
}

/** Runs any command line (npx, script, an installed gpu) with the same capture, in the repository unless told. */
export async function runCommand(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): Promise<CliResult> {
  return collect(spawn(command, args, { env, cwd, stdio: ["pipe", "pipe", "pipe"] }));
}

/** On a pseudo-terminal: stdin, stdout and stderr are all the pty, so the output is both, as a person sees it. */
export function runGpuOnTerminal(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const commandLine = [process.execPath, GPU, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(" ");
  return runCommand("script", ["--quiet", "--return", "--command", commandLine, "/dev/null"], env);
}

async function collect(child: ChildProcess, input?: string): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin!.end(input);
  const [code] = (await once(child, "exit")) as [number | null];
  return { code: code ?? -1, stdout, stderr };
}

/** A CLI process that keeps running: lines of stdout as they come, and a clean interrupt. */
export class RunningGpu {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  stderr = "";
  readonly #waiters = new Set<() => void>();

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [GPU, ...args], { env, cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    this.child.stderr!.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      this.lines.push(line);
      for (const wake of this.#waiters) wake();
    });
    this.child.once("exit", () => {
      for (const wake of this.#waiters) wake();
    });
  }

  /** The first stdout line matching `test`, waiting for it; fails if the process ends first. */
  async line(test: (line: string) => boolean): Promise<string> {
    for (;;) {
      const found = this.lines.find(test);
      if (found !== undefined) return found;
      if (this.child.exitCode !== null) throw new Error(`gpu exited with ${this.child.exitCode} before the line; stderr: ${this.stderr}`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          resolve();
        };
        this.#waiters.add(wake);
      });
    }
  }

  /** Resolves with the exit status once the process has ended by itself. */
  async exited(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const [code] = (await once(this.child, "exit")) as [number | null];
    return code;
  }

  /** Ctrl-C; resolves with the exit status. */
  async interrupt(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = once(this.child, "exit");
    this.child.kill("SIGINT");
    const [code] = (await exited) as [number | null];
    return code;
  }
}
