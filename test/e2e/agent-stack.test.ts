// Host agents against the real control plane: wrangler dev, real agent processes, local runtime.
import { once } from "node:events";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startChild } from "../../scripts/dev/processes.ts";
import { poll, useE2eStack, type Instance } from "./support/e2e-stack.ts";

// A heartbeat timeout short enough to watch a silent agent go offline; the other files keep the
// Worker's default, so a machine busy running files side by side never takes their hosts offline.
const stack = useE2eStack({ HEARTBEAT_TIMEOUT_MS: "6000" });

type Gpu = { model: string; free_gpus: number; max_per_server: number };
const gpu = async (model: string) => (await stack.api<{ gpus: Gpu[] }>("GET", "/v1/gpus")).body.gpus.find((g) => g.model === model)!;
const instance = async (id: string) => (await stack.api<Instance & { machine_online: boolean }>("GET", `/v1/instances/${id}`)).body;
const events = async (id: string) => (await stack.api<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`)).body.items.map((e) => e.message);
const containerDir = (id: string) => join(stack.stateDir, "agents", "dev-2", "containers", id);

describe("host agents", () => {
  it("connected agents' GPUs appear in /v1/gpus", async () => {
    expect(await gpu("rtx4090")).toMatchObject({ free_gpus: 8, max_per_server: 8 });
    expect(await gpu("h100-80gb")).toMatchObject({ free_gpus: 2, max_per_server: 2 });
    expect(await gpu("a100-80gb")).toMatchObject({ free_gpus: 0, max_per_server: 0 });
  });

  it("a killed agent takes its machine offline and its GPUs out of free_gpus; restarted, it is back", async () => {
    // SIGKILL: no goodbye from the agent, only its socket closed by the kernel.
    const agent = stack.agents.get("dev-2")!;
    const exited = once(agent.process, "exit");
    process.kill(-agent.process.pid!, "SIGKILL");
    await exited;
    await stack.stopAgent("dev-2");
    await stack.waitForMachines({ "dev-2": false });
    expect(await gpu("h100-80gb")).toMatchObject({ free_gpus: 0, max_per_server: 0 });
    stack.startAgent("dev-2");
    await stack.waitForMachines({ "dev-2": true });
    await poll(() => gpu("h100-80gb"), (g) => g.free_gpus === 2);
  });

  it("an agent that goes silent (frozen, socket still open) is offline after the heartbeat timeout, then returns", async () => {
    const agent = stack.agents.get("dev-2")!;
    process.kill(-agent.process.pid!, "SIGSTOP");
    try {
      await stack.waitForMachines({ "dev-2": false }, 15_000);
    } finally {
      process.kill(-agent.process.pid!, "SIGCONT");
    }
    await stack.waitForMachines({ "dev-2": true }, 20_000);
  }, 40_000);

  it("after an agent restart its running instance is reconciled back to running", async () => {
    const launched = await stack.launchRunning({ gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" });
    await stack.stopAgent("dev-2");
    await poll(() => instance(launched.id), (i) => !i.machine_online);
    stack.startAgent("dev-2");
    await poll(() => instance(launched.id), (i) => i.machine_online && i.status === "running");
    const health = await poll(
      () => fetch(stack.proxyUrl(launched, 8888, "/health"), { headers: { authorization: `Bearer ${stack.key}` } }).then((r) => r.status),
      (status) => status === 200,
    );
    expect(health).toBe(200);
    const log = await events(launched.id);
    expect(log.some((m) => m.includes("went offline"))).toBe(true);
    expect(log.some((m) => m.includes("back online"))).toBe(true);
    await stack.api("DELETE", `/v1/instances/${launched.id}`);
  }, 60_000);

  it("a stop and a destroy sent while the host is offline are applied when it reconnects", async () => {
    const kept = await stack.launchRunning({ gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" });
    const removed = await stack.launchRunning({ gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" });
    expect(existsSync(containerDir(removed.id))).toBe(true);
    await stack.stopAgent("dev-2");
    await stack.waitForMachines({ "dev-2": false });
    expect((await stack.api("POST", `/v1/instances/${kept.id}/stop`)).status).toBe(204);
    expect((await stack.api("DELETE", `/v1/instances/${removed.id}`)).status).toBe(204);
    stack.startAgent("dev-2");
    await poll(async () => existsSync(containerDir(removed.id)), (exists) => !exists);
    await poll(() => events(kept.id), (log) => log.some((m) => m.includes("Container stopped")));
    expect(existsSync(containerDir(kept.id))).toBe(true);
    expect((await instance(kept.id)).status).toBe("stopped");
    await stack.api("DELETE", `/v1/instances/${kept.id}`);
  }, 60_000);

  it("an agent with a wrong token never joins; the endpoint refuses it with 401 before upgrading", async () => {
    const status = await new Promise<number>((resolve) => {
      const socket = new WebSocket(`${stack.baseUrl.replace("http", "ws")}/agent/v1/connect`, {
        headers: { authorization: `Bearer gma_${stack.setup.machines["dev-1"]!.id}_${"a".repeat(32)}` },
      });
      socket.on("unexpected-response", (_req, res) => resolve(res.statusCode!));
      socket.on("open", () => resolve(101));
    });
    expect(status).toBe(401);
    const impostor = startChild("impostor", join(process.cwd(), "node_modules/.bin/node"), [
      "host-agent/dev/dev-main.ts", "--server", stack.baseUrl, "--token", `gma_${stack.setup.machines["dev-1"]!.id}_${"b".repeat(32)}`,
      "--runtime", "local", "--gpus", "rtx4090:1", "--state-dir", join(stack.stateDir, "impostor"),
    ], process.env, false);
    try {
      await poll(async () => impostor.output(), (out) => out.includes("401"));
    } finally {
      await impostor.stop();
    }
  });
});
