// The Worker sees every request first and hands the paths it does not own to the dashboard's static
// files (env.ASSETS), with the single-page fallback; /v1, /admin and /agent stay the Worker's, and
// /bench the dev Worker's (the one these tests run).
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE, call } from "../test/support/workerd/api-client.ts";
import production from "./main.ts";

describe("dashboard assets behind the Worker", () => {
  it("serves the dashboard's index.html at / and its script from the built files", async () => {
    const page = await call("GET", "/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('<div id="root"></div>');
    const script = /<script type="module" crossorigin src="([^"]+)"/.exec(html)?.[1];
    expect(script).toMatch(/^\/assets\/index-[\w-]+\.js$/);
    const bundle = await call("GET", script!);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toMatch(/^text\/javascript|^application\/javascript/);
  }, 30_000); // the file's first request starts the Worker and its assets service

  it.each(["/login", "/instances/i-abcdefghijklmnop", "/settings/keys", "/billing?cursor=abc"])(
    "answers the single-page app's route %s with index.html, so a reload works",
    async (path) => {
      const response = await call("GET", path);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('<div id="root"></div>');
    },
  );

  it.each([
    ["/v1", 404, "not_found"],
    ["/v1/no-such-route", 404, "not_found"],
    ["/v1/me", 401, "unauthorized"],
    ["/admin/v1/machines", 401, "unauthorized"],
    ["/bench/noop", 404, "not_found"],
  ])("keeps %s the Worker's: %i %s as JSON, never the dashboard", async (path, status, error) => {
    const response = await call("GET", path);
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual({ error, message: expect.any(String) });
  });

  it("in the production Worker /bench is a dashboard path like any other: no bench route, whatever BENCH_ROUTES says", async () => {
    for (const path of ["/bench/noop", "/bench/open-streams/1"]) {
      const response = await production.fetch(new Request(BASE + path), { ...env, BENCH_ROUTES: "1" }, createExecutionContext());
      expect(response.status, path).toBe(200);
      expect(await response.text()).toContain('<div id="root"></div>');
    }
  });

  it("answers a write to a dashboard path as an unknown route: 404 in the error format, not the asset server's bare 405", async () => {
    for (const [method, path] of [["POST", "/"], ["PUT", "/launch"], ["DELETE", "/instances/i-aaaaaaaaaaaaaaaa"], ["OPTIONS", "/billing"]] as const) {
      const response = await call(method, path, method === "POST" || method === "PUT" ? { body: {} } : {});
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(await response.json()).toEqual({ error: "not_found", message: `no route ${method} ${path}` });
      expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    }
  });

  it("keeps the agent endpoint the Worker's", async () => {
    const response = await call("GET", "/agent/v1/connect");
    expect(response.status).toBe(401);
  });
});
