import { beforeAll, describe, expect, it } from "vitest";
import { admin, callJson, GPU_MODELS, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { until } from "../../../test/support/workerd/poll.ts";

const base = { gpu_model: "rtx4090", gpu_count: 1, template: "vllm", model: "qwen2.5-0.5b-instruct" };
let key: string;

beforeAll(async () => {
  await FakeAgent.online("validation-host", Array(8).fill("rtx4090"));
  key = (await newAccount(1_000_000_000)).key;
  await until(() => callJson<{ gpus: { model: string; free_gpus: number }[] }>("GET", "/v1/gpus", { key }),
    (r) => r.body.gpus.some((g) => g.model === "rtx4090" && g.free_gpus >= 8), "the host's GPUs");
});

const launch = (body: unknown, k = key) => callJson("POST", "/v1/instances", { key: k, body });

describe("POST /v1/instances validation", () => {
  it.each([
    [{ ...base, gpu_model: "tpu-v5" }, "gpu_model"],
    [{ ...base, gpu_model: 7 }, "gpu_model"],
    [{ ...base, gpu_count: 0 }, "gpu_count"],
    [{ ...base, gpu_count: 9 }, "gpu_count"],
    [{ ...base, gpu_count: 1.5 }, "gpu_count"],
    [{ ...base, gpu_count: "1" }, "gpu_count"],
    [{ gpu_model: "rtx4090", template: "vllm", model: "qwen2.5-0.5b-instruct" }, "gpu_count"],
    [{ ...base, template: "tensorflow" }, "template"],
    [{ gpu_model: "rtx4090", gpu_count: 1, model: "qwen2.5-0.5b-instruct" }, "template"],
    [{ ...base, model: undefined }, "model"],
    [{ ...base, model: "no-such-model" }, "model"],
    [{ ...base, model: "bge-large-en-v1.5" }, "model"],
    [{ ...base, template: "embeddings", model: "qwen2.5-0.5b-instruct" }, "model"],
    [{ ...base, template: "pytorch" }, "model"],
    [{ ...base, template: "custom", model: undefined }, "image"],
    [{ ...base, template: "custom", model: undefined, image: "Not A Valid//Image" }, "image"],
    [{ ...base, image: "nginx:1.27" }, "image"],
    [{ ...base, disk_gb: 9 }, "disk_gb"],
    [{ ...base, disk_gb: 2001 }, "disk_gb"],
    [{ ...base, disk_gb: 50.5 }, "disk_gb"],
    [{ ...base, env: { "1BAD": "x" } }, "env"],
    [{ ...base, env: { GOOD: 1 } }, "env"],
    [{ ...base, env: { INSTANCE_TOKEN: "mine" } }, "env"],
    [{ ...base, env: { NVIDIA_VISIBLE_DEVICES: "all" } }, "env.NVIDIA_VISIBLE_DEVICES"],
    [{ ...base, env: { NVIDIA_DRIVER_CAPABILITIES: "all" } }, "env.NVIDIA_DRIVER_CAPABILITIES"],
    [{ ...base, env: { LD_PRELOAD: "/data/hook.so" } }, "env.LD_PRELOAD: is refused: LD_* variables steer the dynamic loader"],
    [{ ...base, env: { HF_TOKEN: "hf_x", LD_LIBRARY_PATH: "/data" } }, "env.LD_LIBRARY_PATH"],
    [{ ...base, env: { LD_AUDIT: "/data/a.so" } }, "env.LD_AUDIT"],
    [{ ...base, env: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`V${i}`, "x"])) }, "env"],
    [{ ...base, env: { BIG: "x".repeat(40_000) } }, "env"],
    // 16,384 characters but 32,768 bytes of UTF-8: with its name, over the limit, which counts bytes.
    [{ ...base, env: { BIG: "é".repeat(16_384) } }, "env"],
    [{ ...base, env: ["A=1"] }, "env"],
    [{ ...base, env: { NUL: "a\u0000b" } }, "env.NUL"],
    [{ ...base, label: "x".repeat(65) }, "label"],
    [{ ...base, label: 5 }, "label"],
    [{ ...base, gpu_modle: "rtx4090" }, "gpu_modle"],
    [{ ...base, model: "llama-3.3-70b-instruct", gpu_count: 2 }, "model"],
    [{ ...base, template: "comfyui", model: undefined, gpu_count: 2 }, "gpu_count"],
  ])("%j is 400 invalid naming %s", async (body, field) => {
    const { status, body: error } = await launch(body);
    expect(status).toBe(400);
    expect(error).toEqual({ error: "invalid", message: expect.stringContaining(field) });
  });

  it.each([
    ["localhost:5000/agent:latest", "is this host itself"],
    ["localhost/agent", "is this host itself"],
    ["10.0.0.1:5000/img", "is an IP address"],
    ["169.254.169.254/latest", "is an IP address"],
    ["registry:5000/img", "single-label"],
  ])("a custom image from %s is 400 invalid naming image and why (%s)", async (image, why) => {
    const { status, body } = await launch({ gpu_model: "rtx4090", gpu_count: 1, template: "custom", image });
    expect(status).toBe(400);
    expect(body).toEqual({ error: "invalid", message: expect.stringMatching(new RegExp(`^image: must name a public registry: .*${why}`)) });
  });

  it.each(["127.0.0.1.nip.io:5000/x", "registry.example.com/team/app:1", "docker.io.example.net/library/ubuntu"])(
    "a custom image from %s, a registry outside the shipped IMAGE_REGISTRIES, is 400 invalid naming image",
    async (image) => {
      const { status, body } = await launch({ gpu_model: "rtx4090", gpu_count: 1, template: "custom", image });
      expect(status).toBe(400);
      expect(body).toEqual({ error: "invalid", message: expect.stringMatching(/^image: its registry \S+ is not one this service pulls from \(docker.io, ghcr.io, nvcr.io, quay.io, public.ecr.aws, registry.k8s.io\)$/) });
    },
  );

  it("takes Docker Hub short names and the shipped public registries by name", async () => {
    for (const image of ["ubuntu:24.04", "vllm/vllm-openai:v0.11.0", "nvcr.io/nvidia/pytorch:24.01-py3", "quay.io/jupyter/base-notebook:2025-01-06", "public.ecr.aws/docker/library/python:3.12", "registry.k8s.io/pause:3.10"]) {
      const { status, body } = await launch({ gpu_model: "rtx4090", gpu_count: 1, template: "custom", image });
      expect([image, status]).toEqual([image, 201]);
      await callJson("DELETE", `/v1/instances/${(body as { id: string }).id}`, { key });
    }
  });

  it("a refused launch leaves no instance behind", async () => {
    const { key: fresh } = await newAccount(1_000_000_000);
    await launch({ ...base, gpu_count: 99 }, fresh);
    await launch({ ...base, model: "nope" }, fresh);
    expect((await callJson("GET", "/v1/instances", { key: fresh })).body).toEqual({ items: [] });
  });

  it("model is optional for comfyui and a valid image is accepted for custom", async () => {
    const comfy = await launch({ gpu_model: "rtx4090", gpu_count: 1, template: "comfyui" });
    expect(comfy.status).toBe(201);
    expect(comfy.body.model).toBe("");
    const custom = await launch({ gpu_model: "rtx4090", gpu_count: 1, template: "custom", image: "ghcr.io/acme/server:1.2.3" });
    expect(custom.status).toBe(201);
    expect(custom.body.image).toBe("ghcr.io/acme/server:1.2.3");
  });

  it("402 at one micro-dollar below one hour of the price; 201 at exactly one hour", async () => {
    const price = GPU_MODELS.rtx4090.price_hour_micros * 2;
    const poor = await newAccount(price - 1);
    const refused = await launch({ ...base, gpu_count: 2 }, poor.key);
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ error: "insufficient_funds", message: expect.any(String) });
    const exact = await newAccount(price);
    const accepted = await launch({ ...base, gpu_count: 2 }, exact.key);
    expect(accepted.status).toBe(201);
    expect(accepted.body.price_hour_micros).toBe(price);
  });

  it("409 no_capacity for a GPU model no machine has, and for more GPUs than any one machine has free", async () => {
    const none = await launch({ ...base, gpu_model: "a100-80gb" });
    expect(none.status).toBe(409);
    expect(none.body).toEqual({ error: "no_capacity", message: expect.any(String) });
    await admin("PUT", "/gpu-models/l4", { display_name: "NVIDIA L4", vram_gb: 24, price_hour_micros: 400_000, tier: "datacenter", arch: "ada" });
    const small = await FakeAgent.register("l4-host");
    await small.connect(["l4", "l4"]);
    const { key: k } = await newAccount();
    await until(() => callJson<{ gpus: { model: string; free_gpus: number }[] }>("GET", "/v1/gpus", { key: k }),
      (r) => r.body.gpus.some((g) => g.model === "l4" && g.free_gpus === 2), "the L4 host");
    const tooMany = await launch({ ...base, gpu_model: "l4", gpu_count: 3 }, k);
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.error).toBe("no_capacity");
  });

  it("201 returns the whole instance object", async () => {
    const { status, body } = await launch({ ...base, label: "my-llm", env: { HF_TOKEN: "hf_x" } });
    expect(status).toBe(201);
    expect(Object.keys(body).sort()).toEqual([
      "created_at", "desired_state", "disk_gb", "env", "gpu_count", "gpu_model", "gpu_util_percent", "id", "idle_stop_minutes", "image", "label", "machine_id",
      "machine_online", "memory_gb", "model", "ports", "price_hour_micros", "ssh", "started_at", "status", "status_message", "template", "token", "vcpus", "volumes",
    ]);
    expect(body).toMatchObject({
      id: expect.stringMatching(/^i-[a-z2-7]{16}$/), label: "my-llm", status: "creating", status_message: "", desired_state: "running",
      gpu_model: "rtx4090", gpu_count: 1, template: "vllm", model: "qwen2.5-0.5b-instruct", image: expect.stringContaining("vllm"),
      disk_gb: 100, env: { HF_TOKEN: "hf_x" }, token: expect.stringMatching(/^gpi_/), price_hour_micros: GPU_MODELS.rtx4090.price_hour_micros,
      machine_id: expect.any(Number), machine_online: true, started_at: null, gpu_util_percent: null, idle_stop_minutes: null, ssh: null, volumes: [],
    });
    expect(body.ports).toEqual([{ port: 8000, name: expect.any(String), kind: "http", api: "openai", path: expect.stringMatching(/^\//), ready: false, ready_at: null }]);
    const plain = await launch(base);
    expect(plain.body.env).toEqual({});
    expect(plain.body.label).toBe("");
  });
});
