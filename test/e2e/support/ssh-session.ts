// An interactive OpenSSH session into an instance, held open for a fault test: the system `ssh -tt`
// through the Host block `gpu ssh-config --write` wrote, a shell answering, and how it ended.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import type { E2eStack } from "./e2e-stack.ts";
import { cliEnv, runGpu } from "./gpu-cli.ts";

export interface SshHome {
  env: NodeJS.ProcessEnv;
  home: string;
  keyFile: string;
}

/**
 * A user's home in the folder `home` (a test's temporary folder: useTempDir) with a new key on the
 * account and `gpu ssh-config --write` run for the running instances.
 */
export async function sshHome(stack: E2eStack, home: string): Promise<SshHome> {
  const env = cliEnv(home, { GPU_API_URL: stack.baseUrl, GPU_API_KEY: stack.key });
  const keyFile = join(home, "id_ed25519");
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "faults@test", "-f", keyFile]);
  const added = await runGpu(["ssh-keys", "add", `${keyFile}.pub`], env);
  if (added.code !== 0) throw new Error(`gpu ssh-keys add: ${added.stderr}`);
  await writeSshConfig({ env, home, keyFile });
  return { env, home, keyFile };
}

/** Rewrites the Host blocks (after a launch). */
export async function writeSshConfig({ env }: SshHome): Promise<void> {
  const written = await runGpu(["ssh-config", "--write"], env);
  if (written.code !== 0) throw new Error(`gpu ssh-config --write: ${written.stderr}`);
}

export class ShellSession {
  readonly child: ChildProcess;
  stdout = "";
  stderr = "";
  readonly #exit: Promise<number | null>;

  constructor({ env, home, keyFile }: SshHome, instanceId: string) {
    this.child = spawn("ssh", ["-F", join(home, ".ssh", "config"), "-i", keyFile, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-tt", `gpu-${instanceId}`],
      { env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout!.on("data", (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr!.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.#exit = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
  }

  /** Types a command and waits for its answer, proving the shell is there. */
  async answers(timeoutMs = 20_000): Promise<void> {
    const token = `alive-${Math.random().toString(36).slice(2, 8)}`;
    this.child.stdin!.write(`echo ${token.slice(0, 3)}""${token.slice(3)}\n`);
    const deadline = Date.now() + timeoutMs;
    while (!this.stdout.includes(token)) {
      if (this.child.exitCode !== null) throw new Error(`ssh exited ${this.child.exitCode} before answering; stderr: ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`no answer from the shell in ${timeoutMs} ms; stdout: ${this.stdout}; stderr: ${this.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The exit status once ssh has ended by itself, or "hung" if it has not within `timeoutMs` (then it is killed). */
  async exited(timeoutMs: number): Promise<number | null | "hung"> {
    const timer = new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), timeoutMs).unref());
    const outcome = await Promise.race([this.#exit, timer]);
    if (outcome === "hung") this.child.kill("SIGKILL");
    return outcome;
  }
}
