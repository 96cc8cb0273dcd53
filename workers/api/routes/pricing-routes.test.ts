// GET /pricing.json for anyone: the GPUs on offer with their prices and what is free, and the
// templates; no credential, cacheable for 30 s, under the API's per-IP budget. /v1 still needs a key.
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../main.ts";
import type { Env } from "../../../core/env.ts";
import { call, callJson } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";

beforeAll(async () => {
  await FakeAgent.online("pricing-host", ["rtx4090", "rtx4090"]);
});

describe("GET /pricing.json", () => {
  it("answers without a credential: every GPU model with its price and free count, and the templates", async () => {
    const { status, headers, body } = await callJson<{ gpus: Record<string, unknown>[]; templates: Record<string, unknown>[] }>("GET", "/pricing.json");
    expect(status).toBe(200);
    expect(headers.get("cache-control")).toBe("public, max-age=30");
    expect(body.gpus).toContainEqual({ model: "rtx4090", display_name: expect.any(String), vram_gb: 24, price_hour_micros: expect.any(Number), free_gpus: expect.any(Number) });
    expect(body.gpus.find((gpu) => gpu.model === "rtx4090")!.free_gpus).toBeGreaterThanOrEqual(2);
    expect(body.templates).toContainEqual({ id: "vllm", name: "vLLM", description: expect.any(String) });
    expect(Object.keys(body.gpus[0]!).sort()).toEqual(["display_name", "free_gpus", "model", "price_hour_micros", "vram_gb"]);
  });

  it("leaves the API's routes needing a key", async () => {
    expect((await call("GET", "/v1/gpus")).status).toBe(401);
  });

  it("counts against the API's per-IP budget", async () => {
    const limited = { ...env, RATE_LIMIT_RPS: "2" } as Env;
    const responses = await Promise.all(Array.from({ length: 20 }, () =>
      worker.fetch(new Request("http://gpu.test/pricing.json", { headers: { "cf-connecting-ip": "203.0.113.55" } }), limited, createExecutionContext())));
    expect(responses.filter((r) => r.status === 429).length).toBeGreaterThan(10);
  });
});
