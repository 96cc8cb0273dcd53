// The deployed Worker serves nothing while a secret is short enough to guess; the dev Worker keeps
// the local stack's documented dev-admin-token.
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../main.ts";
import devWorker from "../dev/dev-main.ts";
import type { Env } from "../../core/env.ts";

const request = () => new Request("http://gpu.test/v1/gpus", { headers: { "cf-connecting-ip": "10.0.0.1" } });
const withSecrets = (secrets: Partial<Record<"ADMIN_TOKEN" | "INSTANCE_TOKEN_SECRET", string>>) => ({ ...env, ...secrets }) as Env;

describe("the deployed Worker's secrets", () => {
  it.each([
    ["ADMIN_TOKEN", { ADMIN_TOKEN: "dev-admin-token" }, 15],
    ["INSTANCE_TOKEN_SECRET", { INSTANCE_TOKEN_SECRET: "x".repeat(31) }, 31],
  ])("a short %s: every request is 500 naming it", async (name, secrets, bytes) => {
    const response = await worker.fetch(request(), withSecrets(secrets), createExecutionContext());
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: "internal", message: `the service is not configured: its secret ${name} must be at least 32 bytes (it has ${bytes}); its operator sets it with wrangler secret put ${name}`,
    });
  });

  it("32 bytes or more: it serves (here: 401 for a request without a key)", async () => {
    const response = await worker.fetch(request(), withSecrets({ ADMIN_TOKEN: "a".repeat(32), INSTANCE_TOKEN_SECRET: "b".repeat(32) }), createExecutionContext());
    expect(response.status).toBe(401);
  });

  it("the dev Worker serves with the local stack's short dev-admin-token", async () => {
    const response = await devWorker.fetch(request(), withSecrets({ ADMIN_TOKEN: "dev-admin-token" }), createExecutionContext());
    expect(response.status).toBe(401);
  });
});
