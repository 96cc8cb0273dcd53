// With its session cookie, an instance web app's origin passes every request to the port inside the
// instance exactly as sent, through the MachineDO; the session ends with the instance's run, after
// 12 hours, and with the key or the browser session that opened it.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { personSessionOwner } from "../../core/credentials.ts";
import { sha256Hex } from "../../core/hash.ts";
import { CREDENTIAL_ENDED } from "../../durable-objects/machine/stream-credentials.ts";
import type { ServerMessage } from "../../protocol/messages.ts";
import { admin, call, callJson, newAccount } from "../../test/support/workerd/api-client.ts";
import { appCall, appSession, openApp, ticketUrl, visit } from "../../test/support/workerd/app-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { until } from "../../test/support/workerd/poll.ts";
import { runningInstance, type RunningInstance } from "../../test/support/workerd/proxy-host.ts";
import { browser, PASSWORD, signIn, signUp } from "../../test/support/workerd/session-client.ts";
import { clock } from "../../core/clock.ts";
import { advanceClock } from "../../test/support/workerd/test-clock.ts";

type HttpRequest = Extract<ServerMessage, { type: "http_request" }>;
type WsOpen = Extract<ServerMessage, { type: "ws_open" }>;

let agent: FakeAgent;
let key: string;
let instance: RunningInstance;

beforeAll(async () => {
  agent = await FakeAgent.online("app-sessions-host", Array(24).fill("h100-80gb"));
  agent.serveHttp();
  // Enough for every instance of the file to run the 12 hours one test moves the clock on.
  ({ key } = await newAccount(10_000_000_000));
  instance = await runningInstance(agent, key);
});

const json = { accept: "application/json" };

/** The app's JSON refusal for a request with `session` on `port` of `id`. */
async function refusal(id: string, port: number, session: string | null): Promise<{ status: number; body: unknown }> {
  const response = await appCall("GET", id, port, "/", session, { headers: json });
  return { status: response.status, body: await response.json() };
}

const unauthorized = (message: string) => ({ status: 401, body: { error: "unauthorized", message } });

/** A running instance of a new account that has signed up, with a session and a key. */
async function signedUpWithInstance(): Promise<{ accountId: string; session: string; key: string; instance: RunningInstance }> {
  const account = await signUp();
  await admin("POST", `/accounts/${account.id}/credits`, { amount_micros: 10_000_000, note: "apps" });
  const { body } = await callJson<{ key: string }>("POST", "/v1/keys", { headers: browser(account.session) });
  return { accountId: account.id, session: account.session, key: body.key, instance: await runningInstance(agent, body.key) };
}

describe("requests on an app's origin", () => {
  it("reach the port as sent: method, path, query, body, Authorization and the app's cookies; never gpr_app, no prefix", async () => {
    const session = await appSession(instance.id, 8888, { key });
    const pending = appCall("POST", instance.id, 8888, "/api/a%20b/%2F/c?x=1&y=%20z&x=2", session, {
      cookies: "_xsrf=abc; username-localhost=j",
      rawBody: "hello",
      headers: { authorization: "token jupyter-own", "content-type": "text/plain", "x-custom": "kept", "x-forwarded-prefix": "/spoofed" },
    });
    const request = await agent.waitFor((m): m is HttpRequest => m.type === "http_request" && m.path.startsWith("/api/a%20b"));
    const response = await pending;
    expect(response.status).toBe(200);
    expect(request).toMatchObject({ instance_id: instance.id, port: 8888, method: "POST", path: "/api/a%20b/%2F/c?x=1&y=%20z&x=2", has_body: true });
    expect(Object.fromEntries(request.headers)).toEqual({
      authorization: "token jupyter-own",
      "content-length": "5",
      "content-type": "text/plain",
      cookie: "_xsrf=abc; username-localhost=j",
      "x-custom": "kept",
      "x-forwarded-for": "10.0.0.1",
      "x-forwarded-host": `${instance.id}-8888.localhost:8787`,
      "x-forwarded-proto": "http",
    });
    expect(agent.bodies.get(request.stream)).toBe(5);
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("with only gpr_app for a cookie, the app gets no Cookie header", async () => {
    const session = await appSession(instance.id, 8888, { key });
    const pending = appCall("GET", instance.id, 8888, "/only-ours", session);
    const request = await agent.waitFor((m): m is HttpRequest => m.type === "http_request" && m.path === "/only-ours");
    await pending;
    expect(request.headers.map(([name]) => name)).not.toContain("cookie");
  });

  it("the API's own paths are the app's there: /v1/me, /admin/v1 and /agent/v1/connect reach the app", async () => {
    const session = await appSession(instance.id, 8888, { key });
    for (const path of ["/v1/me", "/admin/v1/machines", "/agent/v1/connect"]) {
      const response = await appCall("GET", instance.id, 8888, path, session, { key });
      expect(response.status, path).toBe(200);
      await agent.waitFor((m) => m.type === "http_request" && m.path === path);
    }
  });

  it("a WebSocket opens with the cookie, with its path and subprotocols, and without gpr_app", async () => {
    const session = await appSession(instance.id, 8888, { key });
    const pending = appCall("GET", instance.id, 8888, "/api/kernels/k1/channels?session_id=s", session, {
      cookies: "_xsrf=abc", headers: { upgrade: "websocket", "sec-websocket-protocol": "v1.kernel.websocket.jupyter.org" },
    });
    const open = await agent.waitFor((m): m is WsOpen => m.type === "ws_open" && m.instance_id === instance.id);
    expect(open).toMatchObject({ port: 8888, path: "/api/kernels/k1/channels?session_id=s", protocols: ["v1.kernel.websocket.jupyter.org"] });
    expect(Object.fromEntries(open.headers).cookie).toBe("_xsrf=abc");
    agent.send({ type: "ws_accepted", stream: open.stream, protocol: "v1.kernel.websocket.jupyter.org" });
    const response = await pending;
    expect(response.status).toBe(101);
    expect(response.headers.get("sec-websocket-protocol")).toBe("v1.kernel.websocket.jupyter.org");
    response.webSocket!.accept();
    response.webSocket!.close(1000, "done");
  });
});

describe("refusals on an app's origin", () => {
  it("no cookie: 401, saying to open the app from the dashboard", async () => {
    expect(await refusal(instance.id, 8888, null)).toEqual(
      unauthorized("no app session: open this app from the dashboard (its Open button) or with POST /v1/instances/{id}/ports/{port}/open"));
  });

  it("a made-up cookie, or one of another instance: 401; nothing reaches the app", async () => {
    const before = agent.httpRequests(instance.id).length;
    expect(await refusal(instance.id, 8888, `gpa_${instance.id}_${"a".repeat(32)}`)).toEqual(unauthorized("no app session; open the app again from the dashboard"));
    const other = await runningInstance(agent, key);
    const otherSession = await appSession(other.id, 8888, { key });
    expect(await refusal(instance.id, 8888, otherSession)).toEqual(unauthorized("the app session is not one of this app's: open this app from the dashboard"));
    expect(agent.httpRequests(instance.id).length).toBe(before);
  });

  it("a cookie of another port of the same instance: 401", async () => {
    const session = await appSession(instance.id, 8888, { key });
    expect(await refusal(instance.id, 8000, session)).toEqual(unauthorized("the app session belongs to another app"));
  });

  it("after stop 409 not_running; after a start (a new run) 401; the new run's app opens again", async () => {
    const doomed = await runningInstance(agent, key);
    const session = await appSession(doomed.id, 8888, { key });
    expect((await call("POST", `/v1/instances/${doomed.id}/stop`, { key })).status).toBe(204);
    expect(await refusal(doomed.id, 8888, session)).toEqual({ status: 409, body: { error: "not_running", message: `instance ${doomed.id} is stopped, not running` } });
    expect((await call("POST", `/v1/instances/${doomed.id}/start`, { key })).status).toBe(204);
    expect(await refusal(doomed.id, 8888, session)).toEqual(unauthorized("no app session; open the app again from the dashboard"));
    agent.report(doomed.id, "running");
    await until(() => callJson<{ status: string }>("GET", `/v1/instances/${doomed.id}`, { key }), (r) => r.body.status === "running", "running again");
    expect(await refusal(doomed.id, 8888, session)).toMatchObject({ status: 401 });
    const fresh = await appSession(doomed.id, 8888, { key });
    expect((await appCall("GET", doomed.id, 8888, "/", fresh)).status).toBe(200);
  });

  it("a ticket issued before a stop does not open the app while stopped (409), nor after the start (401)", async () => {
    const doomed = await runningInstance(agent, key);
    const [first, second] = [await ticketUrl(doomed.id, 8888, { key }), await ticketUrl(doomed.id, 8888, { key })];
    expect((await call("POST", `/v1/instances/${doomed.id}/stop`, { key })).status).toBe(204);
    const whileStopped = await visit(first, json);
    expect({ status: whileStopped.status, body: await whileStopped.json() }).toEqual({ status: 409, body: { error: "not_running", message: `instance ${doomed.id} is stopped, not running` } });
    expect((await call("POST", `/v1/instances/${doomed.id}/start`, { key })).status).toBe(204);
    expect((await visit(second, json)).status).toBe(401);
  });

  it("after destroy 401", async () => {
    const doomed = await runningInstance(agent, key);
    const session = await appSession(doomed.id, 8888, { key });
    const ticket = await ticketUrl(doomed.id, 8888, { key });
    expect((await call("DELETE", `/v1/instances/${doomed.id}`, { key })).status).toBe(204);
    expect(await refusal(doomed.id, 8888, session)).toMatchObject({ status: 401 });
    expect((await visit(ticket, json)).status).toBe(401);
  });

  it("a session lasts 12 hours (the test clock): at 11 h 59 min it opens, at 12 h it is 401", async () => {
    const session = await appSession(instance.id, 8888, { key });
    advanceClock(12 * 3_600_000 - 60_000);
    expect((await appCall("GET", instance.id, 8888, "/", session)).status).toBe(200);
    advanceClock(60_000);
    expect(await refusal(instance.id, 8888, session)).toEqual(unauthorized("the app session expired (it lasts at most 12 hours); open the app again from the dashboard"));
  });

  it("revoking the key that opened it ends the app session on the very next request; another key's app stays open", async () => {
    const account = await newAccount();
    const own = await runningInstance(agent, account.key);
    const doomed = await admin("POST", `/accounts/${account.id}/keys`, { name: "doomed" });
    const doomedSession = await appSession(own.id, 8888, { key: doomed.body.key as string });
    const keptSession = await appSession(own.id, 8888, { key: account.key });
    expect((await appCall("GET", own.id, 8888, "/", doomedSession)).status).toBe(200);
    expect((await call("DELETE", `/v1/keys/${doomed.body.id as string}`, { key: account.key })).status).toBe(204);
    expect(await refusal(own.id, 8888, doomedSession)).toEqual(unauthorized("the API key that opened the app was revoked or has expired; open the app again from the dashboard"));
    expect((await appCall("GET", own.id, 8888, "/", keptSession)).status).toBe(200);
  });

  it("a key kept to the instance, or expiring, opens its app and is served; past its expiry the app session is refused", async () => {
    const account = await newAccount();
    const own = await runningInstance(agent, account.key);
    const kept = await admin("POST", `/accounts/${account.id}/keys`, { name: "kept", instance_ids: [own.id] });
    const expiring = await admin("POST", `/accounts/${account.id}/keys`, { name: "expiring", expires_at: new Date(clock.now() + 3_600_000).toISOString() });
    expect([kept.status, expiring.status]).toEqual([201, 201]);
    const keptSession = await appSession(own.id, 8888, { key: kept.body.key as string });
    const expiringSession = await appSession(own.id, 8888, { key: expiring.body.key as string });
    expect((await appCall("GET", own.id, 8888, "/", keptSession)).status).toBe(200);
    expect((await appCall("GET", own.id, 8888, "/", expiringSession)).status).toBe(200);
    advanceClock(3_600_000);
    expect(await refusal(own.id, 8888, expiringSession)).toEqual(unauthorized("the API key that opened the app was revoked or has expired; open the app again from the dashboard"));
    expect((await appCall("GET", own.id, 8888, "/", keptSession)).status).toBe(200);
  });

  it("a ticket of a key revoked before it is used opens nothing", async () => {
    const account = await newAccount();
    const own = await runningInstance(agent, account.key);
    const doomed = await admin("POST", `/accounts/${account.id}/keys`, { name: "doomed" });
    const ticket = await ticketUrl(own.id, 8888, { key: doomed.body.key as string });
    expect((await call("DELETE", `/v1/keys/${doomed.body.id as string}`, { key: account.key })).status).toBe(204);
    const response = await visit(ticket, json);
    expect({ status: response.status, body: await response.json() }).toEqual(unauthorized("the API key that opened the app was revoked or has expired; open the app again from the dashboard"));
  });

  it("signing out ends the app sessions and unspent tickets that session opened, on the very next request; other sessions' apps stay open", async () => {
    const { session, instance: own, key: ownKey } = await signedUpWithInstance();
    const account = (await callJson<{ account: { email: string } }>("GET", "/v1/me", { headers: browser(session) })).body.account;
    const other = await signIn(account.email, PASSWORD);
    const opened = await appSession(own.id, 8888, { session });
    const unspent = await ticketUrl(own.id, 8888, { session });
    const kept = await appSession(own.id, 8888, { session: other });
    const byKey = await appSession(own.id, 8888, { key: ownKey });
    expect((await call("POST", "/v1/auth/logout", { headers: browser(session) })).status).toBe(204);
    expect(await refusal(own.id, 8888, opened)).toEqual(unauthorized("no app session; open the app again from the dashboard"));
    expect((await visit(unspent, json)).status).toBe(401);
    expect((await appCall("GET", own.id, 8888, "/", kept)).status).toBe(200);
    expect((await appCall("GET", own.id, 8888, "/", byKey)).status).toBe(200);
    // Signing out again (the session is gone) is still 204 and ends nothing more.
    expect((await call("POST", "/v1/auth/logout", { headers: browser(session) })).status).toBe(204);
    expect((await appCall("GET", own.id, 8888, "/", kept)).status).toBe(200);
  });

  it("sign-out ends what the session opened on every host it opened apps on", async () => {
    const { session, key: ownKey, instance: first } = await signedUpWithInstance();
    const secondAgent = await FakeAgent.register("app-sessions-second-host");
    await secondAgent.connect(["a100-80gb"]);
    secondAgent.serveHttp();
    const second = await runningInstance(secondAgent, ownKey, "a100-80gb");
    const sessions = [await appSession(first.id, 8888, { session }), await appSession(second.id, 8888, { session })];
    expect((await call("POST", "/v1/auth/logout", { headers: browser(session) })).status).toBe(204);
    expect((await refusal(first.id, 8888, sessions[0]!)).status).toBe(401);
    expect((await refusal(second.id, 8888, sessions[1]!)).status).toBe(401);
    secondAgent.disconnect();
  });

  it("a password change ends the app sessions of every other session, and keeps its own", async () => {
    const { session, instance: own } = await signedUpWithInstance();
    const account = (await callJson<{ account: { email: string } }>("GET", "/v1/me", { headers: browser(session) })).body.account;
    const other = await signIn(account.email, PASSWORD);
    const othersApp = await appSession(own.id, 8888, { session: other });
    const ownApp = await appSession(own.id, 8888, { session });
    const changed = await call("POST", "/v1/auth/password", { headers: browser(session), body: { current_password: PASSWORD, new_password: PASSWORD } });
    expect(changed.status).toBe(204);
    expect((await refusal(own.id, 8888, othersApp)).status).toBe(401);
    expect((await appCall("GET", own.id, 8888, "/", ownApp)).status).toBe(200);
  });

  it("an opening the account admitted before a sign-out that reaches the host after the sign-out's end is refused 401, no ticket issued", async () => {
    const { accountId, session, instance: own } = await signedUpWithInstance();
    const hash = await sha256Hex(session);
    const sessionId = await runInDurableObject(env.PERSONS.getByName(personSessionOwner(session)!), (_, state) =>
      state.storage.sql.exec<{ id: string }>("SELECT id FROM sessions WHERE hash = ?", hash).one().id);
    expect((await call("POST", "/v1/auth/logout", { headers: browser(session) })).status).toBe(204);
    // The account's issue of the ticket, as AccountDO.openApp sends it once it has checked the session.
    const late = await env.MACHINES.getByName(String(own.machine_id)).issueAppTicket({
      account_id: accountId, instance_id: own.id, port: 8888, opener: { kind: "session", session_id: sessionId },
      key_set: { account_id: accountId, version: 0, hashes: [] },
    });
    expect(late).toEqual({ ok: false, code: "unauthorized", message: CREDENTIAL_ENDED.session });
  });

  it("a sign-out racing an open: whatever the order, nothing the session opened works after the sign-out's 204", async () => {
    for (let round = 0; round < 5; round++) {
      const { session, instance: own } = await signedUpWithInstance();
      const [opened, signedOut] = await Promise.all([
        openApp(own.id, 8888, { session }),
        call("POST", "/v1/auth/logout", { headers: browser(session) }),
      ]);
      expect(signedOut.status).toBe(204);
      if (opened.status !== 200) {
        expect(opened.status).toBe(401);
        continue;
      }
      const redeemed = await visit(opened.body.url, json);
      expect(redeemed.status).toBe(401);
    }
  });
});
