// POST /v1/instances/{id}/ports/{port}/open: the app's address with a one-time ticket, for a key or
// a session of the instance's account, and every refusal around it.
import { env } from "cloudflare:workers";
import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../main.ts";
import type { Env } from "../../../core/env.ts";
import { admin, call, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { appBase, openApp } from "../../../test/support/workerd/app-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningInstance, type RunningInstance } from "../../../test/support/workerd/proxy-host.ts";
import { browser, signUp } from "../../../test/support/workerd/session-client.ts";
import { until } from "../../../test/support/workerd/poll.ts";

let agent: FakeAgent;
let key: string;
let instance: RunningInstance;

beforeAll(async () => {
  agent = await FakeAgent.online("app-routes-host", Array(6).fill("h100-80gb"));
  ({ key } = await newAccount());
  instance = await runningInstance(agent, key);
});

const TICKET_URL = /^http:\/\/(i-[a-z2-7]{16})-(\d+)\.localhost:8787\/\?gpr_ticket=gpt_\1_[a-z2-7]{32}$/;

describe("POST /v1/instances/{id}/ports/{port}/open", () => {
  it("with a key: 200 {url, expires_at}, the app's own origin with a one-time ticket valid 60 s", async () => {
    const before = Date.now();
    const { status, body } = await openApp(instance.id, 8888, { key });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(["expires_at", "url"]);
    expect(body.url).toMatch(TICKET_URL);
    expect(body.url.startsWith(`${appBase(instance.id, 8888)}/?gpr_ticket=gpt_${instance.id}_`)).toBe(true);
    const expires = Date.parse(body.expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(60_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(60_000);
  });

  it("every call gives a new ticket", async () => {
    const [a, b] = await Promise.all([openApp(instance.id, 8888, { key }), openApp(instance.id, 8888, { key })]);
    expect(a.body.url).not.toBe(b.body.url);
  });

  it("with a session: its Origin is required (403 without it), and it opens the app too", async () => {
    const account = await signUp();
    await admin("POST", `/accounts/${account.id}/credits`, { amount_micros: 10_000_000, note: "apps" });
    const { body: created } = await callJson<{ key: string }>("POST", "/v1/keys", { headers: browser(account.session) });
    const own = await runningInstance(agent, created.key);
    const refused = await callJson("POST", `/v1/instances/${own.id}/ports/8888/open`, { headers: browser(account.session, null) });
    expect(refused).toMatchObject({ status: 403, body: { error: "forbidden" } });
    const foreign = await callJson("POST", `/v1/instances/${own.id}/ports/8888/open`, { headers: browser(account.session, "https://evil.example") });
    expect(foreign).toMatchObject({ status: 403, body: { error: "forbidden" } });
    const opened = await openApp(own.id, 8888, { session: account.session });
    expect(opened.status).toBe(200);
    expect(opened.body.url).toMatch(TICKET_URL);
  });

  it("https on an APPS_DOMAIN that is not a localhost name", async () => {
    const deployed: Env = { ...env, APPS_DOMAIN: "Apps.Example.net" };
    const response = await worker.fetch(
      new Request(`https://api.example.com/v1/instances/${instance.id}/ports/8888/open`, { method: "POST", headers: { authorization: `Bearer ${key}` } }),
      deployed, createExecutionContext(),
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as { url: string }).url).toMatch(new RegExp(`^https://${instance.id}-8888\\.apps\\.example\\.net/\\?gpr_ticket=gpt_`));
  });

  it("a port the instance does not have is 404 not_found, naming it", async () => {
    const { status, body } = await openApp(instance.id, 8000, { key });
    expect(status).toBe(404);
    expect(body).toEqual({ error: "not_found", message: `instance ${instance.id} has no HTTP port 8000` });
  });

  it.each(["0", "65536", "08888", "abc", "8888.0", "-1", "99999999999"])("port %s is 400 invalid, naming port", async (port) => {
    const { status, body } = await openApp(instance.id, port, { key });
    expect(status).toBe(400);
    expect(body).toEqual({ error: "invalid", message: "port: must be an integer from 1 to 65535" });
  });

  it("an instance of another account, or none at all, is 404 not_found", async () => {
    const other = await newAccount();
    expect(await openApp(instance.id, 8888, { key: other.key })).toEqual(expect.objectContaining({ status: 404, body: { error: "not_found", message: `no instance ${instance.id} in this account` } }));
    expect((await openApp("i-aaabaaaaaaaaaaaa", 8888, { key })).status).toBe(404);
  });

  it("an instance that is not running is 409 not_running (stopped, or destroyed)", async () => {
    const doomed = await runningInstance(agent, key);
    expect((await call("POST", `/v1/instances/${doomed.id}/stop`, { key })).status).toBe(204);
    expect(await openApp(doomed.id, 8888, { key })).toEqual(expect.objectContaining({ status: 409, body: { error: "not_running", message: `instance ${doomed.id} is stopped, not running` } }));
    expect((await call("DELETE", `/v1/instances/${doomed.id}`, { key })).status).toBe(204);
    expect((await openApp(doomed.id, 8888, { key })).body).toMatchObject({ error: "not_running" });
  });

  it("an instance still being created is 409 not_running", async () => {
    const { body } = await callJson<{ id: string }>("POST", "/v1/instances", { key, body: { gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" } });
    await agent.waitForCommand(body.id, "create");
    expect((await openApp(body.id, 8888, { key })).body).toMatchObject({ error: "not_running" });
    agent.report(body.id, "running");
    await until(() => openApp(body.id, 8888, { key }), (r) => r.status === 200, "opens once running");
  });

  it("an instance whose id does not name its machine (made before ids did) is 409 conflict: its app's host could not be routed", async () => {
    const launched = (await callJson<{ id: string }>("POST", "/v1/instances", { key, body: { gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" } })).body;
    await agent.waitForCommand(launched.id, "create");
    const legacy = `i-zzzz${launched.id.slice(6)}`;
    const accountId = (await callJson<{ account: { id: string } }>("GET", "/v1/me", { key })).body.account.id;
    await runInDurableObject(env.ACCOUNTS.getByName(accountId), (_, state) => {
      state.storage.sql.exec("UPDATE instances SET id = ?, status = 'running' WHERE id = ?", legacy, launched.id);
    });
    expect(await openApp(legacy, 8888, { key })).toEqual(expect.objectContaining({
      status: 409,
      body: { error: "conflict", message: `instance ${legacy} was created before web apps had origins of their own; reach port 8888 through the proxy (or gpu forward)` },
    }));
  });

  it("without a credential, or with a revoked key, 401", async () => {
    expect((await callJson("POST", `/v1/instances/${instance.id}/ports/8888/open`)).status).toBe(401);
    const account = await newAccount();
    const doomed = await admin("POST", `/accounts/${account.id}/keys`, { name: "doomed" });
    await admin("DELETE", `/accounts/${account.id}/keys/${doomed.body.id as string}`);
    expect((await openApp(instance.id, 8888, { key: doomed.body.key as string })).body).toMatchObject({ error: "unauthorized" });
  });
});
