import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../main.ts";
import { newAccount } from "../../test/support/workerd/api-client.ts";
import type { Env } from "../../core/env.ts";
import { ApiError } from "../../core/errors.ts";
import { LOCATION_PERIOD_S, RateLimiter, rateLimiterFor } from "./rate-limit.ts";

describe("RateLimiter", () => {
  it("15 requests per second for 3 seconds are never limited", () => {
    const limiter = new RateLimiter(20);
    for (let i = 0; i < 45; i++) expect(() => limiter.take("1.2.3.4", 1_000 + Math.floor((i * 1000) / 15))).not.toThrow();
  });

  it("a sustained 20 requests per second is never limited", () => {
    const limiter = new RateLimiter(20);
    for (let i = 0; i < 200; i++) expect(() => limiter.take("1.2.3.4", i * 50)).not.toThrow();
  });

  it("100 requests at once: most are refused, each IP has its own bucket", () => {
    const limiter = new RateLimiter(20);
    let refused = 0;
    for (let i = 0; i < 100; i++) {
      try {
        limiter.take("1.2.3.4", 5_000);
      } catch (error) {
        // Only the limiter's refusal counts; anything else is a failure of the test.
        if (!(error instanceof ApiError && error.code === "rate_limited")) throw error;
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(50);
    expect(() => limiter.take("5.6.7.8", 5_000)).not.toThrow();
  });
});

describe("the budgets", () => {
  it("the API's is 20 a second and the apps' 200 when their variable is unset or not a positive number", () => {
    for (const unset of [undefined, "", "0", "-5", "x"]) {
      expect(rateLimiterFor(unset, "api").ratePerSecond).toBe(20);
      expect(rateLimiterFor(unset, "apps").ratePerSecond).toBe(200);
      expect(rateLimiterFor(unset, "admin").ratePerSecond).toBe(20);
    }
  });

  it("are separate buckets: spending one leaves the other full", () => {
    const api = rateLimiterFor("5", "api");
    for (let i = 0; i < 10; i++) api.take("198.51.100.1", 1_000);
    expect(() => api.take("198.51.100.1", 1_000)).toThrow();
    expect(() => rateLimiterFor("5", "apps").take("198.51.100.1", 1_000)).not.toThrow();
  });
});

describe("rate limiting through the Worker", () => {
  it("100 requests at once from one IP: most get 429 rate_limited with Retry-After", async () => {
    const { key } = await newAccount();
    const limitedEnv: Env = { ...env, RATE_LIMIT_RPS: "20" };
    const responses = await Promise.all(
      Array.from({ length: 100 }, () =>
        worker.fetch(new Request("http://gpu.test/v1/me", { headers: { authorization: `Bearer ${key}`, "cf-connecting-ip": "203.0.113.9" } }), limitedEnv, createExecutionContext()),
      ),
    );
    const limited = responses.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(50);
    expect(responses.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    expect(limited[0]!.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(await limited[0]!.json()).toEqual({ error: "rate_limited", message: expect.any(String) });
  });
});

describe("a flood of SSH and terminal connection attempts", () => {
  it.each([["ssh"], ["terminal"]])("100 %s upgrades at once from one IP: most get 429 rate_limited before anything is looked up", async (way) => {
    const { key } = await newAccount();
    const limitedEnv: Env = { ...env, RATE_LIMIT_RPS: "20" };
    const responses = await Promise.all(
      Array.from({ length: 100 }, () =>
        worker.fetch(new Request(`http://gpu.test/v1/instances/i-abcdefghijklmnop/${way}`, {
          headers: { authorization: `Bearer ${key}`, upgrade: "websocket", origin: "http://gpu.test", "cf-connecting-ip": "203.0.113.10" },
        }), limitedEnv, createExecutionContext()),
      ),
    );
    const limited = responses.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(50);
    expect(limited[0]!.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(await limited[0]!.json()).toEqual({ error: "rate_limited", message: expect.any(String) });
    // The rest were judged: no such instance for an SSH key, no session for a terminal.
    expect(new Set(responses.filter((r) => r.status !== 429).map((r) => r.status))).toEqual(new Set([way === "ssh" ? 404 : 401]));
  });
});

describe("the operator API's own budget (ADMIN_RATE_LIMIT_RPS)", () => {
  it("refuses /admin beyond it with 429 and Retry-After, while the API's budget for the same address is untouched", async () => {
    const limitedEnv: Env = { ...env, ADMIN_RATE_LIMIT_RPS: "3" };
    const fromOneIp = (path: string, key: string) =>
      worker.fetch(new Request(`http://gpu.test${path}`, { headers: { authorization: `Bearer ${key}`, "cf-connecting-ip": "203.0.113.77" } }), limitedEnv, createExecutionContext());
    const admin = await Promise.all(Array.from({ length: 20 }, () => fromOneIp("/admin/v1/machines", "not-the-admin-token")));
    const limited = admin.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(10);
    expect(admin.filter((r) => r.status === 401).length).toBeGreaterThan(0);
    expect(limited[0]!.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    const { key } = await newAccount();
    expect((await fromOneIp("/v1/me", key)).status).toBe(200);
  });
});

describe("the per-location limit (Rate Limiting binding)", () => {
  // vitest.config.ts declares this binding (3 requests per 10 s) for these tests only, so the generated Env lacks it.
  const tight = (env as Env & { TIGHT_RATE_LIMITER: RateLimit }).TIGHT_RATE_LIMITER;
  const tightEnv: Env = { ...env, RATE_LIMIT_RPS: "1000000", RATE_LIMITER: tight };
  // A fresh address per run: the binding's counters outlive a test.
  const address = () => `2001:db8::${crypto.randomUUID().slice(0, 4)}`;
  const get = (ip: string) =>
    worker.fetch(new Request("http://gpu.test/v1/me", { headers: { "cf-connecting-ip": ip } }), tightEnv, createExecutionContext());

  /** Sends requests one at a time until the first 429; its index, and that response. */
  async function untilRefused(ip: string): Promise<{ index: number; refusal: Response }> {
    // The counter's window is aligned to the clock: one rollover mid-way can reset it once, so
    // 2 × limit + 1 requests always reach a refusal.
    for (let index = 0; index < 7; index++) {
      const response = await get(ip);
      if (response.status === 429) return { index, refusal: response };
      expect(response.status).toBe(401); // admitted: no key
    }
    throw new Error("never refused");
  }

  it("a client the isolate's bucket admits is refused past the location's limit: 429 rate_limited, Retry-After the window", async () => {
    const { index, refusal } = await untilRefused(address());
    expect(index).toBeGreaterThanOrEqual(3);
    expect(refusal.headers.get("retry-after")).toBe(String(LOCATION_PERIOD_S));
    expect(await refusal.json()).toEqual({ error: "rate_limited", message: `too many requests from this address in ${LOCATION_PERIOD_S} seconds` });
  });

  it("counts each address on its own", async () => {
    await untilRefused(address());
    expect((await get(address())).status).toBe(401);
  });

  it("is absent in wrangler dev and the tests, where only the isolate's bucket limits", async () => {
    expect(env.RATE_LIMITER).toBeUndefined();
    const ip = address();
    const devEnv: Env = { ...env, RATE_LIMIT_RPS: "1000000" };
    for (let i = 0; i < 10; i++) {
      const response = await worker.fetch(new Request("http://gpu.test/v1/me", { headers: { "cf-connecting-ip": ip } }), devEnv, createExecutionContext());
      expect(response.status).toBe(401);
    }
  });

  it("leaves paths outside /v1/ alone", async () => {
    const ip = address();
    await untilRefused(ip);
    const response = await worker.fetch(new Request("http://gpu.test/agent/v1/connect", { headers: { "cf-connecting-ip": ip } }), tightEnv, createExecutionContext());
    expect(await response.json()).toEqual({ error: "unauthorized", message: "agent token missing or malformed" });
  });
});
