// Baseline (b): Debian's nginx as a reverse proxy to the same upstream. Installs it with apt when it
// is missing and we are root, runs it with its own config in a temp dir on a free port, and stops it
// with its whole process group. When nginx cannot be had, says why and the run goes on without it.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { freePort, poll } from "../../test/e2e/support/e2e-stack.ts";
import { exchange } from "../http/http-client.ts";
import { nginxConfig } from "./nginx-config.ts";

export interface NginxBaseline {
  port: number;
  /** nginx's process group (master and worker). */
  pgid: number;
  version: string;
  stop(): Promise<void>;
}

export type NginxOutcome = { ok: true; nginx: NginxBaseline; notes: string[] } | { ok: false; notes: string[] };

export async function startNginx(upstreamPort: number, log: (line: string) => void): Promise<NginxOutcome> {
  const notes: string[] = [];
  let binary = findNginx();
  if (!binary) {
    const installed = installNginx(log);
    notes.push(installed.note);
    binary = installed.ok ? findNginx() : null;
    if (!binary) return { ok: false, notes: [...notes, "nginx figures are unavailable in this run"] };
  }
  const version = (spawnSync(binary, ["-v"], { encoding: "utf8" }).stderr ?? "").trim().replace(/^nginx version: /, "");
  const prefix = mkdtempSync(join(tmpdir(), "gpu-rental-bench-nginx-"));
  const port = await freePort();
  writeFileSync(join(prefix, "nginx.conf"), nginxConfig({ prefix, listenPort: port, upstreamPort }));
  const child = spawn(binary, ["-p", prefix, "-c", join(prefix, "nginx.conf"), "-e", join(prefix, "error.log")], { detached: true, stdio: "ignore" });
  const stop = async () => {
    await stopGroup(child);
    rmSync(prefix, { recursive: true, force: true });
  };
  try {
    await poll(() => exchange(`http://127.0.0.1:${port}/health`).then((r) => r.status, () => 0), (status) => status === 200, 10_000);
  } catch (error) {
    await stop();
    return { ok: false, notes: [...notes, `nginx did not start: ${(error as Error).message}; nginx figures are unavailable in this run`] };
  }
  notes.push(`(b) ${version} from ${binary}, 1 worker process, proxy_buffering off, proxy_request_buffering off, HTTP/1.1 upstream keep-alive, WebSocket upgrade headers`);
  return { ok: true, nginx: { port, pgid: child.pid!, version, stop }, notes };
}

function findNginx(): string | null {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin"];
  return dirs.map((dir) => join(dir, "nginx")).find((path) => existsSync(path)) ?? null;
}

function installNginx(log: (line: string) => void): { ok: boolean; note: string } {
  if (process.getuid?.() !== 0) return { ok: false, note: "nginx is not installed and we are not root, so it was not installed" };
  if (!findOnPath("apt-get")) return { ok: false, note: "nginx is not installed and apt-get is not available" };
  log("nginx is missing: installing it from Debian's packages (apt-get install -y nginx) for baseline (b)…");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () => spawnSync("apt-get", ["install", "-y", "nginx"], { env, encoding: "utf8", timeout: 300_000 });
  let result = install();
  if (result.status !== 0) {
    // A machine that never ran `apt-get update` has no package lists yet.
    spawnSync("apt-get", ["update"], { env, encoding: "utf8", timeout: 300_000 });
    result = install();
  }
  if (result.status !== 0) return { ok: false, note: `apt-get install -y nginx failed: ${(result.stderr || result.stdout || "").trim().split("\n").slice(-2).join(" ")}` };
  return { ok: true, note: "nginx was not installed: this run installed it with apt-get install -y nginx (Debian's package)" };
}

function findOnPath(command: string): boolean {
  return (process.env.PATH ?? "").split(delimiter).some((dir) => existsSync(join(dir, command)));
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // Already gone.
    }
  };
  signal("SIGTERM");
  const timer = setTimeout(() => signal("SIGKILL"), 3_000);
  await exited;
  clearTimeout(timer);
}
