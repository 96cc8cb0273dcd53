// The deployed Worker refuses to serve while a dev Worker's setting is on, naming it; off, it serves.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE } from "../../test/support/workerd/api-client.ts";
import production from "../main.ts";

const get = (vars: Record<string, string>) => production.fetch(new Request(`${BASE}/v1/openapi.json`), { ...env, ...vars }, createExecutionContext());

describe("dev settings in the deployed Worker", () => {
  it("DEV_LOCAL_IMAGES \"1\": every request is 500 internal naming the setting", async () => {
    const response = await get({ DEV_LOCAL_IMAGES: "1" });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: "internal",
      message: "the service is not configured: DEV_LOCAL_IMAGES is a setting of the dev Worker only; its operator removes it from the deployment's vars",
    });
  });

  it("DEV_LOCAL_IMAGES \"0\" or absent: it serves", async () => {
    expect((await get({ DEV_LOCAL_IMAGES: "0" })).status).toBe(200);
    const { DEV_LOCAL_IMAGES: _, ...without } = env;
    expect((await production.fetch(new Request(`${BASE}/v1/openapi.json`), without as typeof env, createExecutionContext())).status).toBe(200);
  });
});
