// `npm run dev` as a user runs it: the script as a child process, its output, its READY line.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "../../..");

export interface Dev {
  child: ChildProcess;
  output: () => string;
}

export function startDev(env: Record<string, string>, args: string[] = []): Dev {
  // The test runner's environment holds the workerd tests' secrets (vitest.config.ts); a user's does not.
  const { ADMIN_TOKEN: _admin, INSTANCE_TOKEN_SECRET: _secret, R2_ACCESS_KEY_ID: _r2Key, R2_SECRET_ACCESS_KEY: _r2Secret, ...inherited } = process.env;
  const child = spawn(join(ROOT, "node_modules/.bin/node"), ["scripts/dev.ts", ...args], {
    cwd: ROOT, env: { ...inherited, ...env }, stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

export async function waitForReady(dev: Dev): Promise<string> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const line = dev.output().split("\n").find((l) => l.startsWith("READY "));
    if (line) return line;
    if (dev.child.exitCode !== null) throw new Error(`npm run dev exited: ${dev.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no READY line: ${dev.output()}`);
}
