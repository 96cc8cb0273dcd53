// Starts baseline (f), the bare relay (relay-object.ts), on its own `wrangler dev` with the settings
// of the service's stack (scripts/dev/stack.ts: the same Node, log level and no local observability),
// and its peer; says where it listens and which workerd runs it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freeLatePort } from "../../host-agent/dev/free-port.ts";
import { startChild, type Child } from "../../scripts/dev/processes.ts";
import { freePort, poll } from "../../test/e2e/support/e2e-stack.ts";
import { wranglerWorkerds } from "../stack/wrangler-workerds.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const START_MS = 60_000;

export interface FloorStack {
  /** Where a small request is relayed: any path but /ready and /peer. */
  url: string;
  /** The Worker's workerd, whose main thread runs the Worker and the relay. */
  workerdPid: number;
  stop(): Promise<void>;
}

export async function startFloorStack(): Promise<FloorStack> {
  const stateDir = mkdtempSync(join(tmpdir(), "gpu-rental-bench-floor-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const children: Child[] = [];
  const stop = async () => {
    await Promise.all(children.map((child) => child.stop()));
    rmSync(stateDir, { recursive: true, force: true, maxRetries: 3 });
  };
  try {
    const wrangler = startChild("floor wrangler", process.execPath, [
      join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "dev", "--config", join(ROOT, "bench/floor/wrangler.toml"),
      "--ip", "127.0.0.1", "--port", String(port), "--persist-to", stateDir, "--show-interactive-dev-session=false",
      "--log-level", "warn", "--inspector-port", String(await freeLatePort(new Set([port]))),
    ], { X_LOCAL_OBSERVABILITY: "false", ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_COLOR: "1" }, false);
    children.push(wrangler);
    await poll(() => fetch(`${base}/ready`).then((r) => r.ok, () => false), Boolean, START_MS);
    const peer = startChild("floor peer", process.execPath, [join(import.meta.dirname, "relay-peer.ts"), `ws://127.0.0.1:${port}/peer`], process.env, false);
    children.push(peer);
    const connected = await poll(async () => peer.output(), (output) => output.includes("open") || peer.process.exitCode !== null, START_MS);
    if (!connected.includes("open")) throw new Error(`its peer did not connect: ${connected}`);
    const { worker } = wranglerWorkerds(wrangler.process.pid!, port);
    if (worker === null) throw new Error("its Worker's workerd was not found");
    return { url: `${base}/fast/health`, workerdPid: worker, stop };
  } catch (error) {
    await stop();
    throw new Error(`the bare relay did not start: ${(error as Error).message}`);
  }
}
