// Starts baseline (f), the bare relay (relay-object.ts), on its own `wrangler dev`, started as the
// service's stack starts its own (scripts/dev/wrangler-dev.ts), and its peer; says where it listens
// and which workerd runs it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChild, type Child } from "../../scripts/dev/processes.ts";
import { startWranglerDev } from "../../scripts/dev/wrangler-dev.ts";
import { freePort, poll } from "../../test/e2e/support/e2e-stack.ts";
import { wranglerWorkerds } from "../stack/wrangler-workerds.ts";

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
    const wrangler = await startWranglerDev("floor wrangler", { config: "bench/floor/wrangler.toml", port, stateDir, logLevel: "warn" });
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
