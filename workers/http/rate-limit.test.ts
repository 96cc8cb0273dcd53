import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../main.ts";
import { newAccount } from "../../test/support/workerd/api-client.ts";
import type { Env } from "../../core/env.ts";
import { RateLimiter } from "./rate-limit.ts";

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
      } catch {
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(50);
    expect(() => limiter.take("5.6.7.8", 5_000)).not.toThrow();
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
