// How an app's origin refuses: a page for a person in a browser, JSON for a client that asks for
// it; hosts under APPS_DOMAIN that name no app; and the apps' own request budget.
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../main.ts";
import type { Env } from "../../core/env.ts";
import { newAccount } from "../../test/support/workerd/api-client.ts";
import { appBase, appCall, appSession, visit } from "../../test/support/workerd/app-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { runningInstance, type RunningInstance } from "../../test/support/workerd/proxy-host.ts";

let key: string;
let instance: RunningInstance;

beforeAll(async () => {
  const agent = await FakeAgent.online("app-refusals-host", ["h100-80gb"]);
  agent.serveHttp();
  ({ key } = await newAccount());
  instance = await runningInstance(agent, key);
});

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";

describe("the 401 of an app's origin", () => {
  it("is a short HTML page saying to open the app from the dashboard, for a browser's navigation", async () => {
    const response = await appCall("GET", instance.id, 8888, "/lab", null, { headers: { accept: BROWSER_ACCEPT } });
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    const page = await response.text();
    expect(page).toContain("<title>Open this app from the dashboard</title>");
    expect(page).toContain("press Open beside the port");
  });

  it.each([["*/*"], [null], ["text/html, application/json"]])("is the page for Accept %j too (not only JSON)", async (accept) => {
    const response = await appCall("GET", instance.id, 8888, "/", null, { headers: accept === null ? {} : { accept } });
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });

  it.each([["application/json"], ["application/json, text/plain, */*"], ["application/problem+json"]])("is the JSON error for Accept %j", async (accept) => {
    const response = await appCall("GET", instance.id, 8888, "/api/contents", null, { headers: { accept } });
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({
      error: "unauthorized",
      message: "no app session: open this app from the dashboard (its Open button) or with POST /v1/instances/{id}/ports/{port}/open",
    });
  });
});

describe("hosts under APPS_DOMAIN", () => {
  it.each([
    ["not an instance id", "x-8888"],
    ["port 0", "i-aaabaaaaaaaaaaaa-0"],
    ["port 65536", "i-aaabaaaaaaaaaaaa-65536"],
    ["a port with a leading zero", "i-aaabaaaaaaaaaaaa-08888"],
    ["no port", "i-aaabaaaaaaaaaaaa"],
    ["machine 0 (names no machine)", "i-aaaaaaaaaaaaaaaa-8888"],
    ["a deeper name", "www.i-aaabaaaaaaaaaaaa-8888"],
  ])("%s is 404 not_found", async (_, label) => {
    const response = await visit(`http://${label}.${env.APPS_DOMAIN}/`, { accept: "application/json" });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: string }).error).toBe("not_found");
  });

  it("an app host is recognised in any letter case (the cookie is the browser's business)", async () => {
    const session = await appSession(instance.id, 8888, { key });
    const response = await visit(`http://${instance.id.toUpperCase()}-8888.LOCALHOST:8787/`, { cookie: `gpr_app=${session}` });
    expect(response.status).toBe(200);
  });

  it("APPS_DOMAIN itself and other hosts are the API's", async () => {
    expect((await visit(`http://${env.APPS_DOMAIN}/v1/me`, { accept: "application/json" })).status).toBe(401);
    expect((await visit(`http://${env.APPS_DOMAIN}/v1/openapi.json`)).status).toBe(200);
  });

  it("an unknown instance on a well-formed host is 401 (nothing says whether it exists)", async () => {
    const response = await visit(`http://i-aaabzzzzzzzzzzzz-8888.${env.APPS_DOMAIN}/`, { accept: "application/json", cookie: `gpr_app=gpa_i-aaabzzzzzzzzzzzz_${"a".repeat(32)}` });
    expect(response.status).toBe(401);
  });
});

describe("the apps' request budget (APPS_RATE_LIMIT_RPS)", () => {
  const fetchAs = (ip: string, url: string, limits: Partial<Env>) =>
    worker.fetch(new Request(url, { headers: { "cf-connecting-ip": ip, accept: "application/json" } }), { ...env, ...limits }, createExecutionContext());

  it("is its own: a burst an app's page makes passes within it, and leaves the API's budget untouched", async () => {
    const limits = { RATE_LIMIT_RPS: "20", APPS_RATE_LIMIT_RPS: "200" };
    const ip = "203.0.113.70";
    const app = await Promise.all(Array.from({ length: 300 }, () => fetchAs(ip, `${appBase(instance.id, 8888)}/static/x.js`, limits)));
    expect(app.filter((r) => r.status === 429).length).toBe(0);
    expect(new Set(app.map((r) => r.status))).toEqual(new Set([401]));
    expect((await fetchAs(ip, "http://gpu.test/v1/me", limits)).status).toBe(401);
  });

  it("past it: 429 rate_limited with Retry-After", async () => {
    const limits = { APPS_RATE_LIMIT_RPS: "20" };
    const ip = "203.0.113.71";
    const responses = await Promise.all(Array.from({ length: 100 }, () => fetchAs(ip, `${appBase(instance.id, 8888)}/`, limits)));
    const limited = responses.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(50);
    expect(limited[0]!.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(await limited[0]!.json()).toEqual({ error: "rate_limited", message: "more than 20 requests per second from this address" });
  });
});
