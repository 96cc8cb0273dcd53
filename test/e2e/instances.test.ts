// The rental lifecycle end to end: real agent, local runtime, dev container server.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { poll, useE2eStack, type Instance } from "./support/e2e-stack.ts";

const stack = useE2eStack();

const get = async (id: string) => (await stack.api<Instance & { started_at: string | null; desired_state: string }>("GET", `/v1/instances/${id}`)).body;
const health = (instance: Instance) =>
  fetch(stack.proxyUrl(instance, 8000, "/health"), { headers: { authorization: `Bearer ${stack.key}` } }).then((r) => r.status);
const dataDir = (id: string) => join(stack.stateDir, "agents", "dev-1", "containers", id, "data");

describe("instance lifecycle on a real host", () => {
  it("create -> running -> stop -> start -> running -> destroy, with its events in order", async () => {
    const created = await stack.api<Instance>("POST", "/v1/instances", {
      gpu_model: "rtx4090", gpu_count: 2, template: "vllm", model: "qwen2.5-0.5b-instruct", label: "e2e",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: "creating", desired_state: "running", started_at: null, machine_online: true });
    const id = created.body.id;
    const running = await poll(() => get(id), (i) => i.status === "running");
    expect(running.started_at).toEqual(expect.any(String));
    await poll(() => health(running), (status) => status === 200);
    expect(existsSync(dataDir(id))).toBe(true);

    expect((await stack.api("POST", `/v1/instances/${id}/stop`)).status).toBe(204);
    expect(await get(id)).toMatchObject({ status: "stopped", desired_state: "stopped" });
    expect(await health(running)).toBe(409);
    await poll(
      () => stack.api<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`),
      (r) => r.body.items.some((e) => e.message.includes("Container stopped")),
    );
    expect(existsSync(dataDir(id))).toBe(true);
    expect((await stack.api("POST", `/v1/instances/${id}/stop`)).status).toBe(409);

    expect((await stack.api("POST", `/v1/instances/${id}/start`)).status).toBe(204);
    expect(["starting", "running"]).toContain((await get(id)).status);
    const again = await poll(() => get(id), (i) => i.status === "running");
    expect(Date.parse(again.started_at!)).toBeGreaterThan(Date.parse(running.started_at!));
    await poll(() => health(again), (status) => status === 200);

    expect((await stack.api("DELETE", `/v1/instances/${id}`)).status).toBe(204);
    expect((await get(id)).status).toBe("destroyed");
    await poll(async () => existsSync(join(dataDir(id), "..")), (exists) => !exists);

    const log = (await poll(
      () => stack.api<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`),
      (r) => r.body.items.some((e) => e.message.includes("removed from the host")),
    )).body.items.map((e) => e.message).reverse();
    const expected = [
      "waiting for the host", "Pulling image", "Creating container", "instance is running", "Stop requested", "Container stopped",
      "Start requested", "instance is running", "Destroyed", "removed from the host",
    ];
    let at = 0;
    for (const fragment of expected) {
      const found = log.findIndex((message, i) => i >= at && message.includes(fragment));
      expect(found, `"${fragment}" in order in ${JSON.stringify(log)}`).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
  }, 60_000);

  it("the free GPU count follows launches, stops and destroys", async () => {
    const free = async () => (await stack.api<{ gpus: { model: string; free_gpus: number }[] }>("GET", "/v1/gpus")).body.gpus.find((g) => g.model === "h100-80gb")!.free_gpus;
    expect(await free()).toBe(2);
    const a = await stack.launchRunning({ gpu_model: "h100-80gb", gpu_count: 2, template: "pytorch" });
    await poll(free, (n) => n === 0);
    const refused = await stack.api("POST", "/v1/instances", { gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" });
    expect(refused.status).toBe(409);
    await stack.api("POST", `/v1/instances/${a.id}/stop`);
    await poll(free, (n) => n === 2);
    await stack.api("DELETE", `/v1/instances/${a.id}`);
    expect(readdirSync(join(stack.stateDir, "agents", "dev-2")).length).toBeGreaterThan(0);
  }, 60_000);
});
