import { beforeAll, describe, expect, it } from "vitest";
import { call, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { until } from "../../../test/support/workerd/poll.ts";

type Instance = Record<string, unknown> & { id: string; status: string };

let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("lifecycle-host", ["h100-80gb", "h100-80gb"]);
});

const launch = (key: string, body: Record<string, unknown> = {}) =>
  callJson<Instance>("POST", "/v1/instances", { key, body: { gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch", ...body } });
const get = (key: string, id: string) => callJson<Instance>("GET", `/v1/instances/${id}`, { key });
const statusIs = (key: string, id: string, status: string) => until(() => get(key, id), (r) => r.body.status === status, `status ${status}`);
const events = async (key: string, id: string) =>
  (await callJson<{ items: { message: string; created_at: string }[] }>("GET", `/v1/instances/${id}/events`, { key })).body.items;

describe("instance lifecycle", () => {
  it("create -> running -> stop -> start -> running -> destroy, with events newest first", async () => {
    const { key } = await newAccount();
    const { body: created } = await launch(key, { label: "lab" });
    const create = await agent.waitForCommand(created.id, "create");
    expect(create.spec).toMatchObject({ instance_id: created.id, gpu_indices: [expect.any(Number)], ports: [8888] });
    expect(create.spec!.env).toMatchObject({ INSTANCE_TOKEN: created.token, PROXY_BASE_PATH: `/v1/instances/${created.id}/proxy` });
    expect(create.spec!.command.join(" ")).toContain("jupyter lab");
    agent.report(created.id, "pulling");
    agent.send({ type: "pull_progress", instance_id: created.id, percent: 50 });
    agent.report(created.id, "creating");
    agent.report(created.id, "running");
    const running = await statusIs(key, created.id, "running");
    expect(running.body.started_at).toEqual(expect.any(String));

    expect((await call("POST", `/v1/instances/${created.id}/stop`, { key })).status).toBe(204);
    expect((await get(key, created.id)).body).toMatchObject({ status: "stopped", desired_state: "stopped" });
    await agent.waitForCommand(created.id, "stop");
    agent.report(created.id, "stopped");

    expect((await call("POST", `/v1/instances/${created.id}/start`, { key })).status).toBe(204);
    expect((await get(key, created.id)).body).toMatchObject({ status: "starting", desired_state: "running" });
    await agent.waitForCommand(created.id, "start");
    agent.report(created.id, "running");
    await statusIs(key, created.id, "running");

    expect((await call("DELETE", `/v1/instances/${created.id}`, { key })).status).toBe(204);
    expect((await get(key, created.id)).body).toMatchObject({ status: "destroyed", desired_state: "destroyed" });
    await agent.waitForCommand(created.id, "destroy");
    agent.report(created.id, "destroyed");

    const log = await until(() => events(key, created.id), (items) => items.some((e) => e.message.includes("removed")), "the removal event");
    const oldestFirst = log.map((e) => e.message).reverse();
    const expected = ["Created", "Pulling image", "50%", "Creating container", "running", "Stop requested", "stopped", "Start requested", "running", "Destroyed", "removed"];
    let at = 0;
    for (const fragment of expected) {
      const found = oldestFirst.findIndex((message, i) => i >= at && message.includes(fragment));
      expect(found, `event "${fragment}" after position ${at} in ${JSON.stringify(oldestFirst)}`).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
    const times = log.map((e) => Date.parse(e.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it("a model server is started with its model and GPU count, on the image for the GPU's architecture", async () => {
    const { key } = await newAccount();
    const vllm = (await callJson<Instance>("POST", "/v1/instances", {
      key, body: { gpu_model: "h100-80gb", gpu_count: 2, template: "vllm", model: "qwen2.5-7b-instruct" },
    })).body;
    const command = await agent.waitForCommand(vllm.id, "create");
    expect(command.spec!.command).toEqual(["--model", "Qwen/Qwen2.5-7B-Instruct", "--host", "0.0.0.0", "--port", "8000", "--tensor-parallel-size", "2"]);
    expect(command.spec!.env.MODEL_ID).toBe("Qwen/Qwen2.5-7B-Instruct");
    await call("DELETE", `/v1/instances/${vllm.id}`, { key });
    const tei = (await callJson<Instance>("POST", "/v1/instances", {
      key, body: { gpu_model: "h100-80gb", gpu_count: 1, template: "embeddings", model: "bge-large-en-v1.5" },
    })).body;
    expect(tei.image).toBe("ghcr.io/huggingface/text-embeddings-inference:hopper-1.8");
    expect((await agent.waitForCommand(tei.id, "create")).spec!.command).toContain("--port");
    await call("DELETE", `/v1/instances/${tei.id}`, { key });
  });

  it("a failing start is status error with the reason, and can be started again", async () => {
    const { key } = await newAccount();
    const { body } = await launch(key);
    await agent.waitForCommand(body.id, "create");
    agent.report(body.id, "error", "image pull failed: manifest unknown");
    const failed = await statusIs(key, body.id, "error");
    expect(failed.body.status_message).toBe("image pull failed: manifest unknown");
    expect((await events(key, body.id))[0]!.message).toContain("manifest unknown");
    expect((await call("POST", `/v1/instances/${body.id}/start`, { key })).status).toBe(204);
    const creates = await until(async () => agent.commands(body.id).filter((c) => c.op === "create"), (c) => c.length === 2, "a second create");
    expect(creates.length).toBe(2);
    await call("DELETE", `/v1/instances/${body.id}`, { key });
  });

  it("actions where they are not allowed are 409 conflict", async () => {
    const { key } = await newAccount();
    const { body } = await launch(key);
    const start = await callJson("POST", `/v1/instances/${body.id}/start`, { key });
    expect(start.status).toBe(409);
    expect(start.body).toEqual({ error: "conflict", message: expect.any(String) });
    expect((await call("POST", `/v1/instances/${body.id}/stop`, { key })).status).toBe(204);
    expect((await callJson("POST", `/v1/instances/${body.id}/stop`, { key })).body.error).toBe("conflict");
    expect((await call("DELETE", `/v1/instances/${body.id}`, { key })).status).toBe(204);
    for (const [method, path] of [["DELETE", ""], ["POST", "/stop"], ["POST", "/start"]] as const) {
      const response = await callJson(method, `/v1/instances/${body.id}${path}`, { key });
      expect(response.status, `${method} ${path}`).toBe(409);
      expect(response.body.error).toBe("conflict");
    }
  });

  it("start is 409 gpus_busy when the machine's GPUs were taken meanwhile", async () => {
    const { key } = await newAccount();
    const first = (await launch(key, { gpu_count: 2 })).body;
    expect(first.status).toBe("creating");
    await call("POST", `/v1/instances/${first.id}/stop`, { key });
    const other = await newAccount();
    const second = await launch(other.key, { gpu_count: 1 });
    expect(second.status).toBe(201);
    const busy = await callJson("POST", `/v1/instances/${first.id}/start`, { key });
    expect(busy.status).toBe(409);
    expect(busy.body).toEqual({ error: "gpus_busy", message: expect.any(String) });
    expect((await get(key, first.id)).body.status).toBe("stopped");
    await call("DELETE", `/v1/instances/${second.body.id}`, { key: other.key });
    await call("DELETE", `/v1/instances/${first.id}`, { key });
  });

  it("PATCH renames, returns the instance, and applies the label rules", async () => {
    const { key } = await newAccount();
    const { body } = await launch(key);
    const renamed = await callJson<Instance>("PATCH", `/v1/instances/${body.id}`, { key, body: { label: "renamed" } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: body.id, label: "renamed" });
    const tooLong = await callJson("PATCH", `/v1/instances/${body.id}`, { key, body: { label: "y".repeat(65) } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toEqual({ error: "invalid", message: expect.stringContaining("label") });
    const missing = await callJson("PATCH", `/v1/instances/${body.id}`, { key, body: {} });
    expect(missing.body).toEqual({ error: "invalid", message: "body: must set label, idle_stop_minutes or both" });
    // No path after launch sets env: a PATCH naming it (LD_PRELOAD, say) is refused, the instance's env as launched.
    const env = await callJson("PATCH", `/v1/instances/${body.id}`, { key, body: { label: "preloaded", env: { LD_PRELOAD: "/data/hook.so" } } });
    expect(env).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringContaining("env") } });
    expect((await callJson<Instance>("GET", `/v1/instances/${body.id}`, { key })).body).toMatchObject({ label: "renamed", env: {} });
    expect((await events(key, body.id))[0]!.message).toContain("renamed");
    await call("DELETE", `/v1/instances/${body.id}`, { key });
  });

  it("another account's instance is 404 not_found on every endpoint", async () => {
    const owner = await newAccount();
    const stranger = await newAccount();
    const { body } = await launch(owner.key);
    const attempts: [string, string, unknown?][] = [
      ["GET", ""], ["PATCH", "", { label: "x" }], ["GET", "/events"], ["POST", "/stop"], ["POST", "/start"], ["DELETE", ""],
      ["GET", "/proxy/8888/"],
    ];
    for (const [method, suffix, payload] of attempts) {
      const response = await callJson(method, `/v1/instances/${body.id}${suffix}`, { key: stranger.key, body: payload });
      expect(response.status, `${method} ${suffix}`).toBe(404);
      expect(response.body.error).toBe("not_found");
    }
    const list = await callJson<{ items: Instance[] }>("GET", "/v1/instances", { key: stranger.key });
    expect(list.body.items).toEqual([]);
    expect((await get(owner.key, body.id)).body.status).toBe("creating");
    await call("DELETE", `/v1/instances/${body.id}`, { key: owner.key });
  });

  it("GET /v1/instances lists newest first, destroyed included", async () => {
    const { key } = await newAccount();
    const a = (await launch(key)).body;
    const b = (await launch(key, { gpu_model: "h100-80gb" })).body;
    await call("DELETE", `/v1/instances/${a.id}`, { key });
    const { body } = await callJson<{ items: Instance[] }>("GET", "/v1/instances", { key });
    expect(body.items.map((i) => i.id)).toEqual([b.id, a.id]);
    expect(body.items[1]!.status).toBe("destroyed");
    await call("DELETE", `/v1/instances/${b.id}`, { key });
  });

  it("Idempotency-Key: a retry returns the first instance, another body is 409 conflict", async () => {
    const { key } = await newAccount();
    const headers = { "idempotency-key": "launch-1" };
    const body = { gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" };
    const first = await callJson<Instance>("POST", "/v1/instances", { key, body, headers });
    const retry = await callJson<Instance>("POST", "/v1/instances", { key, body, headers });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(first.body.id);
    const different = await callJson("POST", "/v1/instances", { key, body: { ...body, label: "other" }, headers });
    expect(different.status).toBe(409);
    expect(different.body.error).toBe("conflict");
    expect((await callJson<{ items: Instance[] }>("GET", "/v1/instances", { key })).body.items.length).toBe(1);
    await call("DELETE", `/v1/instances/${first.body.id}`, { key });
  });
});
