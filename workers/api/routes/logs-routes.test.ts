// GET /v1/instances/{id}/logs through the real Worker, AccountDO and MachineDO to an agent speaking
// the protocol: the query's rules, who may read, what the agent is asked, the answer relayed as it
// streams, no logs (409), an offline host (502), and a client leaving a follow leaving no stream.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import { DataKind, type ServerMessage } from "../../../protocol/index.ts";
import { admin, call, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";
import { until } from "../../../test/support/workerd/poll.ts";
import { browser, signUp } from "../../../test/support/workerd/session-client.ts";
import { openStreamsOf } from "../../dev/dev-machine-do.ts";

type LogsOpen = Extract<ServerMessage, { type: "logs_open" }>;

let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("logs-host", Array(8).fill("rtx4090"));
});

/** The next logs_open the agent receives for `id` (after the `seen` it had already). */
async function logsOpened(id: string, seen = 0): Promise<LogsOpen> {
  await agent.waitFor((m) => agent.received.filter((r) => r.type === "logs_open" && r.instance_id === id).length > seen);
  return agent.received.filter((m): m is LogsOpen => m.type === "logs_open" && m.instance_id === id)[seen]!;
}

/** Answers a logs_open as the agent does: a head, the body, and (unless `open`) its end. */
function answer(stream: number, contentType: string, body: string, open = false): void {
  agent.send({ type: "http_response", stream, status: 200, headers: [["content-type", contentType]] });
  if (body) agent.sendData(DataKind.body, stream, new TextEncoder().encode(body));
  if (!open) agent.send({ type: "end", stream });
}

const openStreams = () => openStreamsOf(env, agent.machineId);

describe("GET /v1/instances/{id}/logs", () => {
  it("refuses a tail outside 1 to 10,000 or not a whole number, and a follow that is not true or false, naming the field", async () => {
    const { key } = await newAccount();
    const id = await runningOn(agent, key);
    for (const tail of ["0", "10001", "abc", "1.5", "-1", "", "99999999"]) {
      expect(await callJson("GET", `/v1/instances/${id}/logs?tail=${tail}`, { key }), `tail=${tail}`).toMatchObject({
        status: 400, body: { error: "invalid", message: "tail: must be an integer from 1 to 10000" },
      });
    }
    expect(await callJson("GET", `/v1/instances/${id}/logs?follow=yes`, { key })).toMatchObject({
      status: 400, body: { error: "invalid", message: "follow: must be true or false" },
    });
    expect(agent.received.some((m) => m.type === "logs_open" && m.instance_id === id)).toBe(false);
  });

  it("asks the agent for the last 200 lines by default and relays its plain text answer", async () => {
    const { key } = await newAccount();
    const id = await runningOn(agent, key);
    const pending = call("GET", `/v1/instances/${id}/logs`, { key });
    const opened = await logsOpened(id);
    expect(opened).toEqual({ type: "logs_open", stream: expect.any(Number), instance_id: id, tail: 200, follow: false, format: "text" });
    answer(opened.stream, "text/plain; charset=utf-8", "one\ntwo\n");
    const response = await pending;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    expect(await response.text()).toBe("one\ntwo\n");

    const last = call("GET", `/v1/instances/${id}/logs?tail=10000`, { key });
    expect(await logsOpened(id, 1)).toMatchObject({ tail: 10_000, follow: false, format: "text" });
    answer((await logsOpened(id, 1)).stream, "text/plain; charset=utf-8", "");
    expect(await (await last).text()).toBe("");
    await until(openStreams, (n) => n === 0, "no stream left open");
  });

  it("follow=true asks for events and streams them as they come; Accept: text/event-stream gets the tail as events", async () => {
    const { key } = await newAccount();
    const id = await runningOn(agent, key);
    const pending = call("GET", `/v1/instances/${id}/logs?tail=5&follow=true`, { key });
    const opened = await logsOpened(id);
    expect(opened).toMatchObject({ tail: 5, follow: true, format: "events" });
    const first = 'data: {"t":"2026-11-21T12:00:00.000Z","stream":"stdout","line":"one"}\n\n';
    answer(opened.stream, "text/event-stream", first, true);
    const response = await pending;
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe(first);
    const second = 'data: {"t":"2026-11-21T12:00:01.000Z","stream":"stderr","line":"two"}\n\n';
    agent.sendData(DataKind.body, opened.stream, new TextEncoder().encode(second));
    expect(decoder.decode((await reader.read()).value)).toBe(second);
    agent.send({ type: "end", stream: opened.stream });
    expect((await reader.read()).done).toBe(true);

    const tailOnly = call("GET", `/v1/instances/${id}/logs?tail=3`, { key, headers: { accept: "text/event-stream" } });
    expect(await logsOpened(id, 1)).toMatchObject({ tail: 3, follow: false, format: "events" });
    answer((await logsOpened(id, 1)).stream, "text/event-stream", first);
    expect(await (await tailOnly).text()).toBe(first);
  });

  it("a client that leaves a follow: the agent is told at the next write (at the latest its keep-alive) and no stream stays open", async () => {
    const infos = vi.spyOn(console, "log").mockImplementation(() => undefined);
    onTestFinished(() => infos.mockRestore());
    const { id: accountId, key } = await newAccount();
    const id = await runningOn(agent, key);
    const before = await openStreams();
    const pending = call("GET", `/v1/instances/${id}/logs?follow=true`, { key });
    const opened = await logsOpened(id);
    answer(opened.stream, "text/event-stream", 'data: {"t":"2026-11-21T12:00:00.000Z","stream":"stdout","line":"one"}\n\n', true);
    const response = await pending;
    const reader = response.body!.getReader();
    await reader.read();
    expect(await openStreams()).toBe(before + 1);
    await reader.cancel();
    // The agent's keep-alive comment finds the client gone.
    const keepAlive = new TextEncoder().encode(": keep-alive\n\n");
    await until(async () => {
      agent.sendData(DataKind.body, opened.stream, keepAlive);
      return agent.received.some((m) => m.type === "abort" && m.stream === opened.stream);
    }, (aborted) => aborted, "the abort to the agent");
    await until(openStreams, (n) => n === before, "the stream closed in the MachineDO");
    // The MachineDO's line about it names the request as its X-Request-Id does, with the account, instance and machine.
    const lines = infos.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>);
    expect(lines.filter((line) => line.msg === "client left before the response ended" && line.instance_id === id)).toEqual([
      expect.objectContaining({ request_id: response.headers.get("x-request-id"), account_id: accountId, instance_id: id, machine_id: agent.machineId, stream: "logs" }),
    ]);
  });

  it("is 409 not_running when the host has no logs for the instance, or it is destroyed, without asking the host then", async () => {
    const { key } = await newAccount();
    const id = await runningOn(agent, key);
    const pending = callJson("GET", `/v1/instances/${id}/logs`, { key });
    const opened = await logsOpened(id);
    agent.send({ type: "http_response", stream: opened.stream, status: 404, headers: [] });
    agent.send({ type: "end", stream: opened.stream });
    expect(await pending).toMatchObject({ status: 409, body: { error: "not_running", message: `the host has no logs for instance ${id}` } });

    expect((await call("DELETE", `/v1/instances/${id}`, { key })).status).toBe(204);
    await agent.waitForCommand(id, "destroy");
    expect(await callJson("GET", `/v1/instances/${id}/logs`, { key })).toMatchObject({ status: 409, body: { error: "not_running" } });
    expect(agent.received.filter((m) => m.type === "logs_open" && m.instance_id === id)).toHaveLength(1);
    await until(openStreams, (n) => n === 0, "no stream left open");
  });

  it("reads a stopped instance's logs from its host", async () => {
    const { key } = await newAccount();
    const id = await runningOn(agent, key);
    expect((await call("POST", `/v1/instances/${id}/stop`, { key })).status).toBe(204);
    await agent.waitForCommand(id, "stop");
    agent.report(id, "stopped");
    const pending = call("GET", `/v1/instances/${id}/logs?tail=1`, { key });
    const opened = await logsOpened(id);
    answer(opened.stream, "text/plain; charset=utf-8", "last words\n");
    expect(await (await pending).text()).toBe("last words\n");
  });

  it("takes a session as well as a key; 401 without either, 404 for an instance of another account", async () => {
    const owner = await signUp();
    await admin("POST", `/accounts/${owner.id}/credits`, { amount_micros: 10_000_000 });
    const id = await runningOn(agent, (await admin("POST", `/accounts/${owner.id}/keys`, { name: "launcher" })).body.key as string);
    const pending = call("GET", `/v1/instances/${id}/logs?tail=1`, { headers: browser(owner.session, null) });
    const opened = await logsOpened(id);
    answer(opened.stream, "text/plain; charset=utf-8", "hi\n");
    const response = await pending;
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("hi\n");

    expect(await callJson("GET", `/v1/instances/${id}/logs`)).toMatchObject({ status: 401, body: { error: "unauthorized" } });
    const stranger = await newAccount();
    expect(await callJson("GET", `/v1/instances/${id}/logs`, { key: stranger.key })).toMatchObject({
      status: 404, body: { error: "not_found", message: `no instance ${id} in this account` },
    });
  });

  it("is 502 upstream_unavailable while the host is offline", async () => {
    const offline = await FakeAgent.register("logs-offline-host");
    await offline.connect(["h100-80gb"]);
    const { key } = await newAccount();
    const { body } = await callJson<{ id: string }>("POST", "/v1/instances", { key, body: { gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" } });
    await offline.waitForCommand(body.id, "create");
    offline.disconnect();
    await until(() => callJson<{ machine_online: boolean }>("GET", `/v1/instances/${body.id}`, { key }), (r) => !r.body.machine_online, "the host offline");
    expect(await callJson("GET", `/v1/instances/${body.id}/logs`, { key })).toMatchObject({
      status: 502, body: { error: "upstream_unavailable", message: `the host of instance ${body.id} is offline` },
    });
  });
});
