import { beforeAll, describe, expect, it } from "vitest";
import { call, callJson, newAccount, seedGpuModels } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { until } from "../../../test/support/workerd/poll.ts";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe("GET /v1/me", () => {
  it("returns the account grouped apart from the balance", async () => {
    const { id, key } = await newAccount(12_345_678);
    const { status, body, headers } = await callJson("GET", "/v1/me", { key });
    expect(status).toBe(200);
    expect(headers.get("x-request-id")).toMatch(/^req_/);
    expect(Object.keys(body).sort()).toEqual(["account", "accounts", "balance_micros", "month_spend_micros", "user"]);
    expect(body.balance_micros).toBe(12_345_678);
    const account = body.account as Record<string, unknown>;
    expect(Object.keys(account).sort()).toEqual(["budget_action", "created_at", "email", "id", "low_balance_micros", "monthly_budget_micros", "name", "referral_code", "role"]);
    expect(account.email).toBeNull();
    // Made by the operator: no owner's email to be called by until named, and its key (made by no member) acts as an owner.
    expect(account).toMatchObject({ name: id, role: "owner" });
    expect(account.id).toBe(id);
    expect(account.referral_code).toMatch(/^[A-Z2-7]{8}$/);
    expect(account.created_at).toMatch(ISO);
  });

  it.each([
    ["no Authorization header", undefined],
    ["a malformed key", "Bearer nope"],
    ["a well-formed key of no account", "Bearer gpk_acc-aaaaaaaaaaaaaaaa_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"],
    ["a basic scheme", "Basic dXNlcjpwYXNz"],
  ])("%s is 401 unauthorized", async (_, authorization) => {
    const headers: Record<string, string> = authorization ? { authorization } : {};
    const response = await call("GET", "/v1/me", { headers });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "unauthorized", message: expect.any(String) });
  });

  it("a wrong secret for a real account is 401", async () => {
    const { id } = await newAccount();
    const response = await call("GET", "/v1/me", { key: `gpk_${id}_${"a".repeat(32)}` });
    expect(response.status).toBe(401);
  });

  it("another account's key sees only its own account", async () => {
    const first = await newAccount(1_000_000);
    const second = await newAccount(2_000_000);
    const seen = await callJson("GET", "/v1/me", { key: second.key });
    expect((seen.body.account as { id: string }).id).toBe(second.id);
    expect(seen.body.balance_micros).toBe(2_000_000);
    expect(first.id).not.toBe(second.id);
  });
});

describe("GET /v1/gpus", () => {
  beforeAll(seedGpuModels);

  it("lists every GPU model with price and availability fields of the spec's types", async () => {
    const { key } = await newAccount();
    const { status, body } = await callJson<{ gpus: Record<string, unknown>[] }>("GET", "/v1/gpus", { key });
    expect(status).toBe(200);
    expect(body.gpus.map((g) => g.model).sort()).toEqual(["a100-80gb", "h100-80gb", "rtx4090"]);
    for (const gpu of body.gpus) {
      expect(Object.keys(gpu).sort()).toEqual(
        ["arch", "display_name", "free_gpus", "max_per_server", "model", "price_hour_micros", "tier", "vram_gb"],
      );
      for (const field of ["vram_gb", "price_hour_micros", "free_gpus", "max_per_server"]) expect(Number.isInteger(gpu[field])).toBe(true);
    }
  });

  it("counts free GPUs of online machines only, and max_per_server is the best single machine", async () => {
    const { key } = await newAccount();
    const free = async () => {
      const { body } = await callJson<{ gpus: { model: string; free_gpus: number; max_per_server: number }[] }>("GET", "/v1/gpus", { key });
      return body.gpus.find((g) => g.model === "rtx4090")!;
    };
    const before = await free();
    const big = await FakeAgent.register("big");
    const small = await FakeAgent.register("small");
    await big.connect(Array(8).fill("rtx4090"));
    await small.connect(Array(3).fill("rtx4090"));
    const both = await until(free, (g) => g.free_gpus === before.free_gpus + 11, "11 more free GPUs");
    expect(both.max_per_server).toBe(Math.max(8, before.max_per_server));
    big.disconnect();
    const after = await until(free, (g) => g.free_gpus === before.free_gpus + 3, "the big machine to go offline");
    expect(after.max_per_server).toBe(Math.max(3, before.max_per_server));
    const a100 = (await callJson<{ gpus: { model: string; free_gpus: number; max_per_server: number }[] }>("GET", "/v1/gpus", { key }))
      .body.gpus.find((g) => g.model === "a100-80gb")!;
    expect(a100).toMatchObject({ free_gpus: 0, max_per_server: 0 });
    small.disconnect();
  });
});

describe("GET /v1/catalog", () => {
  beforeAll(seedGpuModels);

  it("returns gpus, templates and models with the spec's fields", async () => {
    const { key } = await newAccount();
    const { status, body } = await callJson<{ gpus: unknown[]; templates: Record<string, unknown>[]; models: Record<string, unknown>[] }>(
      "GET", "/v1/catalog", { key },
    );
    expect(status).toBe(200);
    expect(body.gpus.length).toBe(3);
    expect(body.templates.map((t) => t.id)).toEqual(["vllm", "sglang", "embeddings", "comfyui", "pytorch", "ollama", "custom"]);
    for (const template of body.templates) {
      expect(Object.keys(template).sort()).toEqual(
        ["category", "description", "disk_gb", "id", "image", "min_cuda", "min_vram_gb", "model_kinds", "model_required", "multi_gpu", "name", "ports"],
      );
    }
    expect(body.models.length).toBeGreaterThanOrEqual(15);
    for (const model of body.models) {
      expect(Object.keys(model).sort()).toEqual(
        ["cached", "description", "gated", "hf", "id", "kind", "license", "min_vram_gb", "name", "params", "size_gb", "tags", "tier"],
      );
    }
    const vllm = body.templates.find((t) => t.id === "vllm")!;
    expect(vllm.ports).toEqual([expect.objectContaining({ port: 8000, kind: "http", api: "openai" })]);
  });

  it("marks a model cached once an online machine reports it in its cache", async () => {
    const { key } = await newAccount();
    const cachedOf = async (hf: string) => {
      const { body } = await callJson<{ models: { hf: string; cached: boolean }[] }>("GET", "/v1/catalog", { key });
      return body.models.find((m) => m.hf === hf)!.cached;
    };
    expect(await cachedOf("Qwen/Qwen2.5-0.5B-Instruct")).toBe(false);
    const agent = await FakeAgent.register("cache-host");
    await agent.connect(["rtx4090"], [], ["Qwen/Qwen2.5-0.5B-Instruct"]);
    await until(() => cachedOf("Qwen/Qwen2.5-0.5B-Instruct"), (cached) => cached, "the model to show as cached");
    agent.disconnect();
    await until(() => cachedOf("Qwen/Qwen2.5-0.5B-Instruct"), (cached) => !cached, "the cache to leave with the machine");
  });
});
