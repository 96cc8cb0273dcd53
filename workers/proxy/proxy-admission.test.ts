// Who opens the proxy, through the real Worker, MachineDO and AccountDO in workerd: the MachineDO
// hosting the instance admits a valid key or the instance's token on its own (the AccountDO is not on
// the hot path), and what it cannot judge goes to the credential's AccountDO (the slow path).
import { env, exports } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { machineIdOfInstance } from "../../core/ids.ts";
import { PROXY_REFUSAL_HEADER } from "../../durable-objects/contracts/proxy-request.ts";
import type { ServerMessage } from "../../protocol/messages.ts";
import { admin, call, callJson, machineOnline, newAccount } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { until } from "../../test/support/workerd/poll.ts";
import { countOpenProxyCalls, proxyGet, runningInstance, type AccountCallCounter } from "../../test/support/workerd/proxy-host.ts";
import { browser, signUp } from "../../test/support/workerd/session-client.ts";

let agent: FakeAgent;
let counter: AccountCallCounter | null = null;

beforeAll(async () => {
  // One GPU per instance, never given back: enough for every test of the file.
  agent = await FakeAgent.online("admission-host", Array(16).fill("h100-80gb"));
  agent.serveHttp();
});

afterEach(async () => {
  await counter?.stop();
  counter = null;
});

async function counting(): Promise<AccountCallCounter> {
  counter = await countOpenProxyCalls();
  return counter;
}

const UNAUTHORIZED = { error: "unauthorized", message: expect.any(String) };

describe("proxy admission", () => {
  it("a valid key on a running instance is admitted by its MachineDO alone: no AccountDO call in 20 requests", async () => {
    const { key } = await newAccount();
    const instance = await runningInstance(agent, key);
    expect(instance.id).toMatch(/^i-[a-z2-7]{16}$/);
    expect(machineIdOfInstance(instance.id)).toBe(agent.machineId);
    expect(instance.machine_id).toBe(agent.machineId);
    const calls = await counting();
    for (let i = 0; i < 20; i++) expect((await proxyGet(instance.id, key)).status).toBe(200);
    expect(calls.openProxyCalls()).toBe(0);
    expect(agent.httpRequests(instance.id).length).toBe(20);
    // The counter sees the slow path when it is taken: a key the MachineDO cannot judge.
    const stranger = await newAccount();
    expect((await proxyGet(instance.id, stranger.key)).status).toBe(404);
    expect(calls.openProxyCalls()).toBe(1);
  });

  it("another account's valid key is 404 not_found, a wrong key 401, a malformed credential 401 without any object", async () => {
    const owner = await newAccount();
    const instance = await runningInstance(agent, owner.key);
    const stranger = await newAccount();
    const calls = await counting();
    const other = await callJson("GET", `/v1/instances/${instance.id}/proxy/8888/health`, { key: stranger.key });
    expect(other).toMatchObject({ status: 404, body: { error: "not_found", message: `no instance ${instance.id} in this account` } });
    const wrong = owner.key.slice(0, -4) + (owner.key.endsWith("aaaa") ? "bbbb" : "aaaa");
    expect(await callJson("GET", `/v1/instances/${instance.id}/proxy/8888/health`, { key: wrong })).toMatchObject({ status: 401, body: UNAUTHORIZED });
    const unknownAccount = `gpk_acc-${"q".repeat(16)}_${"a".repeat(32)}`;
    expect((await proxyGet(instance.id, unknownAccount)).status).toBe(401);
    expect(calls.openProxyCalls()).toBe(3);
    for (const malformed of ["nope", owner.key.slice(0, -1), `gpi_${owner.id}_short`, "Bearer"]) {
      const response = await callJson("GET", `/v1/instances/${instance.id}/proxy/8888/health`, { key: malformed });
      expect(response, malformed).toMatchObject({ status: 401, body: { error: "unauthorized", message: "send Authorization: Bearer <API_KEY or instance token>" } });
    }
    expect((await proxyGet(instance.id, null)).status).toBe(401);
    expect(calls.openProxyCalls()).toBe(3);
    expect(agent.httpRequests(instance.id)).toEqual([]);
  });

  it("the instance token opens its own instance only, judged by the MachineDO", async () => {
    const { key } = await newAccount();
    const first = await runningInstance(agent, key);
    const second = await runningInstance(agent, key);
    const stranger = await newAccount();
    const strangers = await runningInstance(agent, stranger.key);
    const calls = await counting();
    expect((await proxyGet(first.id, first.token)).status).toBe(200);
    expect(await callJson("GET", `/v1/instances/${second.id}/proxy/8888/health`, { key: first.token })).toMatchObject({ status: 401, body: UNAUTHORIZED });
    expect((await proxyGet(strangers.id, first.token)).status).toBe(401);
    expect((await proxyGet(first.id, strangers.token)).status).toBe(401);
    expect(calls.openProxyCalls()).toBe(0);
    expect((await callJson("GET", "/v1/me", { key: first.token })).status).toBe(401);
    expect(agent.httpRequests(second.id)).toEqual([]);
  });

  it("a session never opens the proxy, as the cookie or as a Bearer token", async () => {
    const { session } = await signUp();
    const { key } = await newAccount();
    const instance = await runningInstance(agent, key);
    expect((await proxyGet(instance.id, null, browser(session))).status).toBe(401);
    expect((await proxyGet(instance.id, session)).status).toBe(401);
  });

  it("a key created is admitted on the fast path at once", async () => {
    const account = await newAccount();
    const instance = await runningInstance(agent, account.key);
    const calls = await counting();
    const created = await callJson<{ key: string }>("POST", "/v1/keys", { key: account.key, body: { name: "fresh" } });
    expect((await proxyGet(instance.id, created.body.key)).status).toBe(200);
    const byOperator = await admin("POST", `/accounts/${account.id}/keys`, { name: "ops" });
    expect((await proxyGet(instance.id, byOperator.body.key as string)).status).toBe(200);
    expect(calls.openProxyCalls()).toBe(0);
  });

  it("a key used only on the proxy gets its last_used_at from the MachineDO's report", async () => {
    const account = await newAccount();
    const instance = await runningInstance(agent, account.key);
    const proxyOnly = await admin("POST", `/accounts/${account.id}/keys`, { name: "proxy only" });
    const lastUsed = async () => ((await admin("GET", `/accounts/${account.id}/keys`)).body.items as { id: string; last_used_at: string | null }[])
      .find((k) => k.id === proxyOnly.body.id)!.last_used_at;
    expect(await lastUsed()).toBeNull();
    const before = Date.now();
    for (let i = 0; i < 3; i++) expect((await proxyGet(instance.id, proxyOnly.body.key as string)).status).toBe(200);
    const at = await until(lastUsed, (value) => value !== null, "last_used_at");
    expect(Date.parse(at!)).toBeGreaterThanOrEqual(before - 1);
  });

  it("an instance not running yet, or on an offline host, is refused as before", async () => {
    const { key } = await newAccount();
    const creating = (await callJson<{ id: string }>("POST", "/v1/instances", { key, body: { gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" } })).body;
    await agent.waitForCommand(creating.id, "create");
    expect(await callJson("GET", `/v1/instances/${creating.id}/proxy/8888/`, { key })).toMatchObject({ status: 409, body: { error: "not_running" } });
    const host = await FakeAgent.register(`admission-offline-${crypto.randomUUID()}`);
    await host.connect(["a100-80gb"]);
    const instance = await runningInstance(host, key, "a100-80gb");
    host.disconnect();
    await until(() => machineOnline(host.machineId), (online) => !online, "the host offline");
    expect(await callJson("GET", `/v1/instances/${instance.id}/proxy/8888/`, { key })).toMatchObject({
      status: 502, body: { error: "upstream_unavailable", message: `the host of instance ${instance.id} is offline` },
    });
  });

  it("the instance's state is its MachineDO's to judge, on the slow path too: destroyed and gone from its host is 409 not_running", async () => {
    const { key } = await newAccount();
    const instance = await runningInstance(agent, key);
    expect((await call("DELETE", `/v1/instances/${instance.id}`, { key })).status).toBe(204);
    await agent.waitForCommand(instance.id, "destroy");
    agent.report(instance.id, "destroyed");
    const containers = () => runInDurableObject(env.MACHINES.getByName(String(agent.machineId)), (_, state) =>
      state.storage.sql.exec("SELECT instance_id FROM containers WHERE instance_id = ?", instance.id).toArray().length);
    await until(containers, (n) => n === 0, "the container gone from its MachineDO");
    // Neither credential can be judged by a machine that no longer knows the instance: its account
    // admits the caller, and the machine answers for the instance's state.
    const calls = await counting();
    for (const credential of [key, instance.token]) {
      expect(await callJson("GET", `/v1/instances/${instance.id}/proxy/8888/health`, { key: credential }), credential).toMatchObject({
        status: 409, body: { error: "not_running", message: `instance ${instance.id} is not running: its host has no container for it` },
      });
    }
    expect(calls.openProxyCalls()).toBe(2);
    expect(agent.httpRequests(instance.id).length).toBe(0);
  });

  it("an instance whose id does not name its machine (made before ids did) is served through the slow path, body included", async () => {
    const account = await newAccount();
    const launched = (await callJson<{ id: string }>("POST", "/v1/instances", { key: account.key, body: { gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" } })).body;
    await agent.waitForCommand(launched.id, "create");
    // As an instance launched before: a random id, whose first characters name some other machine.
    const legacy = `i-zzzz${launched.id.slice(6)}`;
    expect(machineIdOfInstance(legacy)).not.toBe(agent.machineId);
    await runInDurableObject(env.ACCOUNTS.getByName(account.id), (_, state) => {
      state.storage.sql.exec("UPDATE instances SET id = ? WHERE id = ?", legacy, launched.id);
      state.storage.sql.exec("UPDATE events SET instance_id = ? WHERE instance_id = ?", legacy, launched.id);
    });
    await runInDurableObject(env.MACHINES.getByName(String(agent.machineId)), (_, state) => {
      state.storage.sql.exec("UPDATE containers SET instance_id = ? WHERE instance_id = ?", legacy, launched.id);
      state.storage.sql.exec("UPDATE reservations SET instance_id = ? WHERE instance_id = ?", legacy, launched.id);
    });
    agent.report(legacy, "running");
    await until(() => callJson<{ status: string }>("GET", `/v1/instances/${legacy}`, { key: account.key }), (r) => r.body.status === "running", "running");
    const { token } = (await callJson<{ token: string }>("GET", `/v1/instances/${legacy}`, { key: account.key })).body;
    const calls = await counting();
    expect((await proxyGet(legacy, account.key)).status).toBe(200);
    expect((await proxyGet(legacy, token)).status).toBe(200);
    const body = "x".repeat(100_000);
    const posted = await call("POST", `/v1/instances/${legacy}/proxy/8888/upload`, { key: account.key, rawBody: body, headers: { "content-type": "text/plain" } });
    expect(posted.status).toBe(200);
    expect(calls.openProxyCalls()).toBe(3);
    const upload = agent.httpRequests(legacy).find((r) => r.path === "/upload")!;
    expect(upload).toMatchObject({ method: "POST", has_body: true });
    expect(agent.bodies.get(upload.stream)).toBe(body.length);
    const upgrade = exports.default.fetch(new Request(`http://gpu.test/v1/instances/${legacy}/proxy/8888/ws`, {
      headers: { upgrade: "websocket", authorization: `Bearer ${account.key}`, "cf-connecting-ip": "10.0.0.1" },
    }));
    const open = await agent.waitFor((m): m is Extract<ServerMessage, { type: "ws_open" }> => m.type === "ws_open" && m.instance_id === legacy);
    agent.send({ type: "ws_accepted", stream: open.stream, protocol: "" });
    const socket = (await upgrade).webSocket!;
    socket.accept();
    socket.close(1000, "done");
    expect(calls.openProxyCalls()).toBe(4);
    const stranger = await newAccount();
    expect((await proxyGet(legacy, stranger.key)).status).toBe(404);
  });

  it("an upstream's response cannot pass for a refusal: the refusal header is the MachineDO's own", async () => {
    const { key } = await newAccount();
    const host = await FakeAgent.register(`admission-forged-${crypto.randomUUID()}`);
    await host.connect(["a100-80gb"]);
    const instance = await runningInstance(host, key, "a100-80gb");
    const calls = await counting();
    const pending = proxyGet(instance.id, key);
    const request = await host.waitFor((m): m is Extract<ServerMessage, { type: "http_request" }> => m.type === "http_request");
    host.send({ type: "http_response", stream: request.stream, status: 200, headers: [[PROXY_REFUSAL_HEADER, JSON.stringify({ kind: "ask_account" })], ["x-kept", "1"]] });
    host.send({ type: "end", stream: request.stream });
    const response = await pending;
    expect(response.status).toBe(200);
    expect(response.headers.get(PROXY_REFUSAL_HEADER)).toBeNull();
    expect(response.headers.get("x-kept")).toBe("1");
    expect(calls.openProxyCalls()).toBe(0);
    host.disconnect();
  });

  it("an id that names no machine, or one that does not host it, is 404 from the account", async () => {
    const { key } = await newAccount();
    for (const id of ["i-aaaaaaaaaaaaaaaa", `i-aaab${"c".repeat(12)}`, "not-an-id"]) {
      expect(await callJson("GET", `/v1/instances/${id}/proxy/8888/`, { key }), id).toMatchObject({ status: 404, body: { error: "not_found" } });
    }
  });
});
