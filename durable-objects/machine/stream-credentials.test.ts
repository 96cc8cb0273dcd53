// The end of a credential ends the streams it opened, and only those, through the real Worker,
// AccountDO and MachineDO in workerd with a fake agent: revoking an API key ends the SSH connections,
// proxied WebSockets and followed logs it opened; a sign-out, a password change and a sign-out
// everywhere end the terminals, logs and web apps' WebSockets of the sessions they end; removing a member ends what their
// sessions and keys opened; removing an SSH key ends the
// connections that authenticated with it. Each is told why (1008 and a reason, or a comment in a log's
// events), the agent is told to close its end, and the same streams of another credential of the same
// account stay open. The end is delivered with the change: it has happened when the change is answered.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { personSessionOwner } from "../../core/credentials.ts";
import { clock } from "../../core/clock.ts";
import { sha256Hex } from "../../core/hash.ts";
import { DataKind, type ServerMessage } from "../../protocol/index.ts";
import { admin, BASE, call, callJson, newAccount } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { machinesUnreachable } from "../../test/support/workerd/unreachable-machines.ts";
import { until } from "../../test/support/workerd/poll.ts";
import { advanceClock } from "../../test/support/workerd/test-clock.ts";
import { appCall, appSession } from "../../test/support/workerd/app-client.ts";
import { runningInstance, type RunningInstance } from "../../test/support/workerd/proxy-host.ts";
import { asBrowser, browser, PASSWORD, sessionCookie, signIn, signUp, uniqueEmail } from "../../test/support/workerd/session-client.ts";
import { MACHINE_PROXY_URL, machineProxyInit, refusalOf, type ProxyRequest } from "../contracts/proxy-request.ts";
import { CREDENTIAL_ENDED } from "./stream-credentials.ts";

const LAPTOP_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIItlxsmjqcNTqg2EN9xHSoTBtP776H0EEDMMJU3iMj+r me@laptop";
const DESKTOP_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDWzpqOJrLUFnHNdhEJIzNcg7ZKEQ3Gie8q9BsY0/gsQ me@desktop";
const POLICY_VIOLATION = 1008;

type Opening = Extract<ServerMessage, { type: "ssh_open" | "terminal_open" | "ws_open" | "logs_open" }>;

interface OpenSocket {
  stream: number;
  socket: WebSocket;
  closed: Promise<{ code: number; reason: string }>;
}

let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("stream-credentials-host", Array(16).fill("h100-80gb"));
});

/** The client sockets a test opened, closed after it. */
const sockets: WebSocket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.close(1000, "done");
});

/** The next opening of `type` for `instanceId` the agent is sent once `start` runs. */
async function opening(type: Opening["type"], instanceId: string, start: () => Promise<Response>): Promise<{ message: Opening; response: Promise<Response> }> {
  const earlier = new Set(agent.received.filter((m) => m.type === type).map((m) => (m as Opening).stream));
  const response = start();
  const message = await agent.waitFor((m): m is Opening => m.type === type && m.instance_id === instanceId && !earlier.has(m.stream));
  return { message, response };
}

/** A WebSocket (an SSH connection, a terminal, a proxied port or a web app's) opened by `start` as a client would, accepted as the agent does. */
async function openSocket(type: "ssh_open" | "terminal_open" | "ws_open", instanceId: string, start: () => Promise<Response>): Promise<OpenSocket> {
  const { message, response } = await opening(type, instanceId, start);
  agent.send({ type: "ws_accepted", stream: message.stream, protocol: "" });
  const answer = await response;
  expect(answer.status).toBe(101);
  const socket = answer.webSocket!;
  socket.accept();
  sockets.push(socket);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason })));
  return { stream: message.stream, socket, closed };
}

const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });
const upgrade = (path: string, headers: Record<string, string>) => () => call("GET", path, { headers: { upgrade: "websocket", ...headers } });
const ssh = (instance: RunningInstance, credential: string) => openSocket("ssh_open", instance.id, upgrade(`/v1/instances/${instance.id}/ssh`, bearer(credential)));
const proxiedSocket = (instance: RunningInstance, credential: string) =>
  openSocket("ws_open", instance.id, upgrade(`/v1/instances/${instance.id}/proxy/8888/ws`, { ...bearer(credential), "cf-connecting-ip": "10.0.0.1" }));
const terminal = (instance: RunningInstance, session: string) => openSocket("terminal_open", instance.id, upgrade(`/v1/instances/${instance.id}/terminal`, browser(session)));
/** A WebSocket of the instance's web app on port 8888, opened by `opener` (the app session's cookie is its). */
const appSocket = async (instance: RunningInstance, opener: { key: string } | { session: string }) => {
  const cookie = await appSession(instance.id, 8888, opener);
  return openSocket("ws_open", instance.id, () => appCall("GET", instance.id, 8888, "/ws", cookie, { headers: { upgrade: "websocket" } }));
};

/** Ended by the MachineDO: the client's socket closed with 1008 and `reason`, the agent told to close its end the same way. */
async function expectEnded(open: OpenSocket, reason: string): Promise<void> {
  expect(await open.closed).toEqual({ code: POLICY_VIOLATION, reason });
  expect(agent.received).toContainEqual({ type: "ws_close", stream: open.stream, code: POLICY_VIOLATION, reason });
}

/** Still open: a message the client sends now reaches the agent, and nothing closed it. */
async function expectOpen(open: OpenSocket): Promise<void> {
  const before = agent.bodies.get(open.stream) ?? 0;
  open.socket.send(new Uint8Array(3));
  await until(async () => agent.bodies.get(open.stream) ?? 0, (bytes) => bytes === before + 3, "the message through the stream that stays open");
  expect(agent.received.filter((m) => (m.type === "ws_close" || m.type === "abort") && m.stream === open.stream)).toEqual([]);
}

/** `gpu logs --follow`: the agent answers with an event and keeps the stream open. */
async function followLogs(instance: RunningInstance, headers: Record<string, string>): Promise<{ stream: number; body: ReadableStreamDefaultReader<Uint8Array> }> {
  const { message, response } = await opening("logs_open", instance.id, () => call("GET", `/v1/instances/${instance.id}/logs?follow=true`, { headers }));
  agent.send({ type: "http_response", stream: message.stream, status: 200, headers: [["content-type", "text/event-stream"]] });
  agent.sendData(DataKind.body, message.stream, new TextEncoder().encode('data: {"line":"one"}\n\n'));
  const answer = await response;
  expect(answer.status).toBe(200);
  const body = answer.body!.getReader();
  expect(await readText(body)).toBe('data: {"line":"one"}\n\n');
  return { stream: message.stream, body };
}

async function readText(body: ReadableStreamDefaultReader<Uint8Array>): Promise<string | null> {
  const { done, value } = await body.read();
  return done ? null : new TextDecoder().decode(value);
}

/** Everything left of `body` until it ends. */
async function rest(body: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  let text = "";
  for (let part = await readText(body); part !== null; part = await readText(body)) text += part;
  return text;
}

/** A followed log ended: told why in a comment, then over, the agent told to stop. */
async function expectLogEnded(logs: { stream: number; body: ReadableStreamDefaultReader<Uint8Array> }, reason: string): Promise<void> {
  expect(await rest(logs.body)).toBe(`: ${reason}\n\n`);
  expect(agent.received).toContainEqual({ type: "abort", stream: logs.stream, reason });
}

/** A followed log still open: a line the agent sends now reaches the client. */
async function expectLogOpen(logs: { stream: number; body: ReadableStreamDefaultReader<Uint8Array> }): Promise<void> {
  agent.sendData(DataKind.body, logs.stream, new TextEncoder().encode('data: {"line":"two"}\n\n'));
  expect(await readText(logs.body)).toBe('data: {"line":"two"}\n\n');
  expect(agent.received.filter((m) => m.type === "abort" && m.stream === logs.stream)).toEqual([]);
}

async function newKey(accountId: string, name: string): Promise<{ id: string; key: string }> {
  const created = await admin("POST", `/accounts/${accountId}/keys`, { name });
  return { id: created.body.id as string, key: created.body.key as string };
}

/** A signed-up account with a running instance (launched with `key`, which the session made), and a second session of it. */
async function signedUpWithInstance(): Promise<{ id: string; email: string; session: string; other: string; key: string; instance: RunningInstance }> {
  const account = await signUp();
  await admin("POST", `/accounts/${account.id}/credits`, { amount_micros: 100_000_000 });
  const key = (await asBrowser("POST", "/v1/keys", account.session, { body: { name: "launcher" } })).body.key as string;
  const instance = await runningInstance(agent, key);
  return { id: account.id, email: account.email, session: account.session, other: await signIn(account.email, PASSWORD), key, instance };
}

describe("revoking an API key", () => {
  it("ends the SSH connections, proxied WebSockets and followed logs it opened; another key's and the instance token's stay open", async () => {
    const account = await newAccount();
    const instance = await runningInstance(agent, account.key);
    const doomed = await newKey(account.id, "doomed");
    const kept = await newKey(account.id, "kept");
    const doomedSsh = await ssh(instance, doomed.key);
    const doomedSocket = await proxiedSocket(instance, doomed.key);
    const doomedLogs = await followLogs(instance, bearer(doomed.key));
    const keptSsh = await ssh(instance, kept.key);
    const keptLogs = await followLogs(instance, bearer(kept.key));
    const tokenSocket = await proxiedSocket(instance, instance.token);

    expect((await call("DELETE", `/v1/keys/${doomed.id}`, { key: account.key })).status).toBe(204);
    await expectEnded(doomedSsh, CREDENTIAL_ENDED.key);
    await expectEnded(doomedSocket, CREDENTIAL_ENDED.key);
    await expectLogEnded(doomedLogs, CREDENTIAL_ENDED.key);
    await expectOpen(keptSsh);
    await expectOpen(tokenSocket);
    await expectLogOpen(keptLogs);
    expect((await call("GET", `/v1/instances/${instance.id}/ssh`, { key: doomed.key, headers: { upgrade: "websocket" } })).status).toBe(401);
  });

  it("a key kept to the instance and expiring, judged by the account rather than the host's key set: its revocation ends what it opened too", async () => {
    const account = await newAccount();
    const instance = await runningInstance(agent, account.key);
    const made = await admin("POST", `/accounts/${account.id}/keys`, {
      name: "app server", scopes: ["instances:use"], instance_ids: [instance.id], expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const doomed = { id: made.body.id as string, key: made.body.key as string };
    const doomedSsh = await ssh(instance, doomed.key);
    const doomedSocket = await proxiedSocket(instance, doomed.key);
    const doomedLogs = await followLogs(instance, bearer(doomed.key));
    const tokenSocket = await proxiedSocket(instance, instance.token);

    expect((await call("DELETE", `/v1/keys/${doomed.id}`, { key: account.key })).status).toBe(204);
    await expectEnded(doomedSsh, CREDENTIAL_ENDED.key);
    await expectEnded(doomedSocket, CREDENTIAL_ENDED.key);
    await expectLogEnded(doomedLogs, CREDENTIAL_ENDED.key);
    await expectOpen(tokenSocket);
  });

  it("an SSH connection or a log the agent has not answered yet when the key is revoked: 401 saying why, the agent told to abort", async () => {
    const account = await newAccount();
    const instance = await runningInstance(agent, account.key);
    const doomed = await newKey(account.id, "doomed");
    const sshOpening = await opening("ssh_open", instance.id, upgrade(`/v1/instances/${instance.id}/ssh`, bearer(doomed.key)));
    const logsOpening = await opening("logs_open", instance.id, () => call("GET", `/v1/instances/${instance.id}/logs?follow=true`, { key: doomed.key }));

    expect((await call("DELETE", `/v1/keys/${doomed.id}`, { key: account.key })).status).toBe(204);
    for (const { message, response } of [sshOpening, logsOpening]) {
      const refused = await response;
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ error: "unauthorized", message: CREDENTIAL_ENDED.key });
      expect(agent.received).toContainEqual({ type: "abort", stream: message.stream, reason: CREDENTIAL_ENDED.key });
    }
  });

  it("an opening the account admitted before the revocation that reaches the host after it is refused 401, saying why", async () => {
    const account = await newAccount();
    const instance = await runningInstance(agent, account.key);
    const doomed = await newKey(account.id, "doomed");
    expect((await call("DELETE", `/v1/keys/${doomed.id}`, { key: account.key })).status).toBe(204);
    // The slow path's second hop, as the Worker sends it once the key's account has admitted it.
    const late: ProxyRequest = {
      instanceId: instance.id, port: 22, target: "/", method: "GET", headers: [], requestId: "req_late", websocket: { protocols: [] },
      credential: { kind: "admitted_by_account", opener: { kind: "key", key_sha256: await sha256Hex(doomed.key) } }, session: { kind: "ssh", keys: [] },
    };
    const refused = await env.MACHINES.getByName(String(instance.machine_id)).fetch(MACHINE_PROXY_URL, machineProxyInit(late, null, null));
    expect(refused.status).toBe(401);
    expect(refusalOf(refused)).toEqual({ kind: "refused", code: "unauthorized", message: CREDENTIAL_ENDED.key });
    const kept: ProxyRequest = { ...late, credential: { kind: "admitted_by_account", opener: { kind: "key", key_sha256: await sha256Hex(account.key) } } };
    const { message, response } = await opening("ssh_open", instance.id, () =>
      env.MACHINES.getByName(String(instance.machine_id)).fetch(MACHINE_PROXY_URL, machineProxyInit(kept, null, null)));
    agent.send({ type: "ws_accepted", stream: message.stream, protocol: "" });
    const answer = await response;
    expect(answer.status).toBe(101);
    answer.webSocket!.accept();
    sockets.push(answer.webSocket!);
  });
});

describe("a key's expiry", () => {
  it("ends the SSH connections and proxied WebSockets it opened when it expires (the account's alarm tells the hosts); another key's stay open", async () => {
    const account = await newAccount();
    const instance = await runningInstance(agent, account.key);
    const expiring = await callJson("POST", "/v1/keys", { key: account.key, body: { name: "expiring", expires_at: new Date(clock.now() + 60_000).toISOString() } });
    const expiringSsh = await ssh(instance, expiring.body.key as string);
    const expiringSocket = await proxiedSocket(instance, expiring.body.key as string);
    const keptSsh = await ssh(instance, account.key);

    advanceClock(60_000);
    expect(await runDurableObjectAlarm(env.ACCOUNTS.getByName(account.id))).toBe(true);
    await expectEnded(expiringSsh, CREDENTIAL_ENDED.key);
    await expectEnded(expiringSocket, CREDENTIAL_ENDED.key);
    await expectOpen(keptSsh);
  });
});

describe("ending sessions", () => {
  it("a sign-out ends the terminals and followed logs that session opened; the other session's stay open", async () => {
    const { session, other, instance } = await signedUpWithInstance();
    const ownTerminal = await terminal(instance, session);
    const ownLogs = await followLogs(instance, browser(session));
    const otherTerminal = await terminal(instance, other);
    const otherLogs = await followLogs(instance, browser(other));

    expect((await call("POST", "/v1/auth/logout", { headers: browser(session) })).status).toBe(204);
    await expectEnded(ownTerminal, CREDENTIAL_ENDED.session);
    await expectLogEnded(ownLogs, CREDENTIAL_ENDED.session);
    await expectOpen(otherTerminal);
    await expectLogOpen(otherLogs);
  });

  it("a sign-out ends the WebSockets of the web apps that session opened; the app opened with a key keeps its own", async () => {
    const { session, key, instance } = await signedUpWithInstance();
    const ownApp = await appSocket(instance, { session });
    const keyApp = await appSocket(instance, { key });

    expect((await call("POST", "/v1/auth/logout", { headers: browser(session) })).status).toBe(204);
    await expectEnded(ownApp, CREDENTIAL_ENDED.session);
    await expectOpen(keyApp);
  });

  it("removing a member ends what their sessions opened and what their keys opened, one the hosts' key set holds and one it never held; the owner's stay open", async () => {
    const { session: ownerSession, instance } = await signedUpWithInstance();
    const email = uniqueEmail("leaving");
    const invited = await asBrowser("POST", "/v1/members/invitations", ownerSession, { body: { email, role: "developer" } });
    const token = new URL(invited.body.url as string).hash.slice(1);
    const joined = await call("POST", "/v1/auth/accept-invitation", { body: { token, password: PASSWORD }, headers: { origin: BASE } });
    const memberSession = sessionCookie(joined)!;
    const userId = ((await joined.json()) as { user: { id: string } }).user.id;
    const memberTerminal = await terminal(instance, memberSession);
    const memberLogs = await followLogs(instance, browser(memberSession));
    const keptKey = (await asBrowser("POST", "/v1/keys", memberSession, { body: { name: "kept to one", instance_ids: [instance.id] } })).body.key as string;
    const keptSsh = await ssh(instance, keptKey);
    // A key without instances:use is in no host's key set; it follows logs all the same.
    const readerKey = (await asBrowser("POST", "/v1/keys", memberSession, { body: { name: "reader", scopes: ["instances:read"] } })).body.key as string;
    const readerLogs = await followLogs(instance, bearer(readerKey));
    const ownerTerminal = await terminal(instance, ownerSession);

    const removed = await call("DELETE", `/v1/members/${userId}`, { headers: browser(ownerSession) });
    expect(removed.status).toBe(204);
    expect(removed.headers.get("revoked-keys")).toBe("2");
    await expectEnded(memberTerminal, CREDENTIAL_ENDED.session);
    await expectLogEnded(memberLogs, CREDENTIAL_ENDED.session);
    await expectEnded(keptSsh, CREDENTIAL_ENDED.key);
    await expectLogEnded(readerLogs, CREDENTIAL_ENDED.key);
    await expectOpen(ownerTerminal);
  });

  it("a password change ends every other session's terminal and keeps its own; signing out everywhere then ends that one too", async () => {
    const { email, session, other, instance } = await signedUpWithInstance();
    const third = await signIn(email, PASSWORD);
    const changing = await terminal(instance, session);
    const otherTerminal = await terminal(instance, other);
    const thirdTerminal = await terminal(instance, third);

    const changed = await call("POST", "/v1/auth/password", { headers: browser(session), body: { current_password: PASSWORD, new_password: `${PASSWORD} 2` } });
    expect(changed.status).toBe(204);
    await expectEnded(otherTerminal, CREDENTIAL_ENDED.session);
    await expectEnded(thirdTerminal, CREDENTIAL_ENDED.session);
    await expectOpen(changing);

    expect((await call("POST", "/v1/auth/logout-all", { headers: browser(session) })).status).toBe(204);
    await expectEnded(changing, CREDENTIAL_ENDED.session);
  });

  it("an end an AccountDO queued before ends took SSH keys too (end_app_sessions) ends the session's terminal as well", async () => {
    const { id, session, other, instance } = await signedUpWithInstance();
    const ownTerminal = await terminal(instance, session);
    const otherTerminal = await terminal(instance, other);
    const hash = await sha256Hex(session);
    const sessionId = await runInDurableObject(env.PERSONS.getByName(personSessionOwner(session)!), (_, state) =>
      state.storage.sql.exec<{ id: string }>("SELECT id FROM sessions WHERE hash = ?", hash).one().id);

    await env.MACHINES.getByName(String(instance.machine_id)).applyDirectives([{ kind: "end_app_sessions", account_id: id, session_ids: [sessionId] }]);
    await expectEnded(ownTerminal, CREDENTIAL_ENDED.session);
    await expectOpen(otherTerminal);
  });
});

describe("removing an SSH key", () => {
  it("ends the connections that authenticated with it, and one that authenticates with it after; another key's stay open", async () => {
    const account = await newAccount();
    const instance = await runningInstance(agent, account.key);
    const laptop = await addSshKey(account.key, LAPTOP_KEY);
    const desktop = await addSshKey(account.key, DESKTOP_KEY);
    const laptopSsh = await ssh(instance, account.key);
    agent.send({ type: "ssh_key_used", stream: laptopSsh.stream, key_id: laptop });
    const desktopSsh = await ssh(instance, account.key);
    agent.send({ type: "ssh_key_used", stream: desktopSsh.stream, key_id: desktop });
    // Offered the laptop key while it was on the account, authenticating only after its removal.
    const slowSsh = await ssh(instance, account.key);

    expect((await call("DELETE", `/v1/ssh-keys/${laptop}`, { key: account.key })).status).toBe(204);
    await expectEnded(laptopSsh, CREDENTIAL_ENDED.ssh_key);
    await expectOpen(desktopSsh);
    await expectOpen(slowSsh);
    agent.send({ type: "ssh_key_used", stream: slowSsh.stream, key_id: laptop });
    await expectEnded(slowSsh, CREDENTIAL_ENDED.ssh_key);
    await expectOpen(desktopSsh);
  });

  it("a host that cannot be reached: 500 saying it is being applied; a retry confirms it once the host has it, then 404", async () => {
    const account = await newAccount();
    const instance = await runningInstance(agent, account.key);
    const laptop = await addSshKey(account.key, LAPTOP_KEY);
    const laptopSsh = await ssh(instance, account.key);
    agent.send({ type: "ssh_key_used", stream: laptopSsh.stream, key_id: laptop });
    const reachable = await machinesUnreachable(agent.machineId);
    try {
      const removed = await callJson("DELETE", `/v1/ssh-keys/${laptop}`, { key: account.key });
      expect(removed).toMatchObject({ status: 500, body: { error: "internal", message: expect.stringContaining("being applied, retry the request") } });
      // The key is removed at once: new connections no longer offer it.
      expect((await callJson<{ items: unknown[] }>("GET", "/v1/ssh-keys", { key: account.key })).body.items).toEqual([]);
      expect((await callJson("DELETE", `/v1/ssh-keys/${laptop}`, { key: account.key })).status).toBe(500);
    } finally {
      reachable();
    }
    expect((await call("DELETE", `/v1/ssh-keys/${laptop}`, { key: account.key })).status).toBe(204);
    await expectEnded(laptopSsh, CREDENTIAL_ENDED.ssh_key);
    expect(await callJson("DELETE", `/v1/ssh-keys/${laptop}`, { key: account.key })).toMatchObject({
      status: 404, body: { error: "not_found", message: `no SSH key ${laptop} in this account` },
    });
  });
});

async function addSshKey(key: string, line: string): Promise<string> {
  const added = await callJson<{ id: string }>("POST", "/v1/ssh-keys", { key, body: { public_key: line } });
  expect(added.status).toBe(201);
  return added.body.id;
}
