// The proxy entry in workerd, through the real Worker and MachineDO to an agent speaking the protocol:
// the upstream request the agent is handed (headers computed once, in the Worker) and both kinds of
// exchange carried by the MachineDO's fetch.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ServerMessage } from "../../protocol/messages.ts";
import { BASE, call, callJson, newAccount, seedGpuModels } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { until } from "../../test/support/workerd/poll.ts";
import { MAX_WS_MESSAGE_BYTES } from "../../protocol/mux/frames.ts";
import { STREAMS_PER_INSTANCE } from "../../durable-objects/machine/stream-quota.ts";

type HttpRequest = Extract<ServerMessage, { type: "http_request" }>;
type WsOpen = Extract<ServerMessage, { type: "ws_open" }>;

async function runningInstance(): Promise<{ agent: FakeAgent; key: string; id: string }> {
  await seedGpuModels();
  const agent = await FakeAgent.register(`proxy-${crypto.randomUUID()}`);
  await agent.connect(["h100-80gb"]);
  const { key } = await newAccount();
  const { body } = await callJson<{ id: string }>("POST", "/v1/instances", { key, body: { gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" } });
  await agent.waitForCommand(body.id, "create");
  agent.report(body.id, "running");
  await until(() => callJson<{ status: string }>("GET", `/v1/instances/${body.id}`, { key }), (r) => r.body.status === "running", "running");
  return { agent, key, id: body.id };
}

describe("proxy entry", () => {
  it("passes an upstream redirect to the client as it is, never following it itself (Jupyter answers / with 302 to /tree)", async () => {
    const { agent, key, id } = await runningInstance();
    const answered = new Set<number>();
    for (const [status, location] of [[302, "/tree"], [301, "http://elsewhere.example/x"], [307, "relative/path?q=1"]] as const) {
      // The test's own fetch must not follow the redirect either.
      const pending = exports.default.fetch(new Request(`${BASE}/v1/instances/${id}/proxy/8888/`, {
        headers: { authorization: `Bearer ${key}`, "cf-connecting-ip": "10.0.0.1" }, redirect: "manual",
      }));
      const request = await agent.waitFor((m): m is HttpRequest => m.type === "http_request" && !answered.has(m.stream));
      answered.add(request.stream);
      agent.send({ type: "http_response", stream: request.stream, status, headers: [["location", location]] });
      agent.send({ type: "end", stream: request.stream });
      const response = await pending;
      expect([response.status, response.headers.get("location")]).toEqual([status, location]);
    }
    agent.disconnect();
  }, 20_000);

  it("hands the agent the target and the upstream headers computed by the Worker, and answers with its response", async () => {
    const { agent, key, id } = await runningInstance();
    const pending = call("GET", `/v1/instances/${id}/proxy/8888/a%20b/?x=1`, {
      key,
      headers: { cookie: "s=1", "x-upstream-authorization": "Bearer up", "keep-alive": "timeout=5", "x-custom": "kept", "x-gpr-proxy-request": "{}" },
    });
    const request = await agent.waitFor((m): m is HttpRequest => m.type === "http_request");
    expect(request).toEqual({
      type: "http_request",
      stream: expect.any(Number),
      instance_id: id,
      port: 8888,
      method: "GET",
      path: "/a%20b/?x=1",
      headers: [
        ["authorization", "Bearer up"],
        ["x-custom", "kept"],
        ["x-forwarded-for", "10.0.0.1"],
        ["x-forwarded-host", "gpu.test"],
        ["x-forwarded-prefix", `/v1/instances/${id}/proxy/8888`],
        ["x-forwarded-proto", "http"],
      ],
      has_body: false,
    });
    agent.send({ type: "http_response", stream: request.stream, status: 203, headers: [["content-type", "text/plain"], ["connection", "close"]] });
    agent.send({ type: "end", stream: request.stream });
    const response = await pending;
    expect(response.status).toBe(203);
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    expect(response.headers.get("connection")).toBeNull();
    expect(await response.text()).toBe("");
    agent.disconnect();
  });

  it("refuses a stream beyond the instance's cap with 429 rate_limited and Retry-After, and takes one again once another ends", async () => {
    const { agent, key, id } = await runningInstance();
    const held = Array.from({ length: STREAMS_PER_INSTANCE }, (_, n) => call("GET", `/v1/instances/${id}/proxy/8888/slow/${n}`, { key }));
    await until(async () => agent.httpRequests(id).length, (n) => n === STREAMS_PER_INSTANCE, "every held stream at the agent");
    const refused = await call("GET", `/v1/instances/${id}/proxy/8888/one-more`, { key });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toMatchObject({ error: "rate_limited" });
    // The agent may get them in any order: answer held[0]'s.
    const first = agent.httpRequests(id).find((request) => request.path === "/slow/0");
    agent.send({ type: "http_response", stream: first!.stream, status: 200, headers: [] });
    agent.send({ type: "end", stream: first!.stream });
    const ended = await held[0]!;
    expect(ended.status).toBe(200);
    // Read to its end: the stream is over, at both ends, once its body is.
    expect(await ended.text()).toBe("");
    const again = call("GET", `/v1/instances/${id}/proxy/8888/again`, { key });
    await until(async () => agent.httpRequests(id).some((r) => r.path === "/again"), (seen) => seen, "the stream after one ended");
    agent.disconnect();
    expect((await again).status).toBe(502);
    await Promise.all(held.slice(1).map(async (pending) => (await pending).body?.cancel()));
  });

  it("a GET that says it carries a body (Transfer-Encoding: chunked) is forwarded without one, not refused with 500", async () => {
    const { agent, key, id } = await runningInstance();
    const pending = call("GET", `/v1/instances/${id}/proxy/8888/search`, { key, headers: { "transfer-encoding": "chunked" } });
    const request = await agent.waitFor((m): m is HttpRequest => m.type === "http_request");
    expect(request).toMatchObject({ method: "GET", path: "/search", has_body: false });
    agent.send({ type: "http_response", stream: request.stream, status: 200, headers: [] });
    agent.send({ type: "end", stream: request.stream });
    expect((await pending).status).toBe(200);
    agent.disconnect();
  });

  it("carries a WebSocket upgrade: the agent gets ws_open with the offered subprotocols, the client a 101 with a socket", async () => {
    const { agent, key, id } = await runningInstance();
    const pending = exports.default.fetch(new Request(`http://gpu.test/v1/instances/${id}/proxy/8888/ws`, {
      headers: { upgrade: "websocket", authorization: `Bearer ${key}`, "sec-websocket-protocol": "chat.v2, chat.v1", "cf-connecting-ip": "10.0.0.1" },
    }));
    const open = await agent.waitFor((m): m is WsOpen => m.type === "ws_open");
    expect(open).toMatchObject({ instance_id: id, port: 8888, path: "/ws", protocols: ["chat.v2", "chat.v1"] });
    expect(open.headers.map(([name]) => name)).not.toContain("upgrade");
    agent.send({ type: "ws_accepted", stream: open.stream, protocol: "chat.v2" });
    const response = await pending;
    expect(response.status).toBe(101);
    expect(response.headers.get("sec-websocket-protocol")).toBe("chat.v2");
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
    expect(response.webSocket).not.toBeNull();
    response.webSocket!.accept();
    response.webSocket!.close(1000, "done");
    agent.disconnect();
  });

  it("a client message over MAX_WS_MESSAGE_BYTES (1 MiB − 5) closes the exchange at both ends with 1009: the agent is told to close the upstream", async () => {
    const { agent, key, id } = await runningInstance();
    const pending = exports.default.fetch(new Request(`http://gpu.test/v1/instances/${id}/proxy/8888/ws`, {
      headers: { upgrade: "websocket", authorization: `Bearer ${key}`, "cf-connecting-ip": "10.0.0.1" },
    }));
    const open = await agent.waitFor((m): m is WsOpen => m.type === "ws_open");
    agent.send({ type: "ws_accepted", stream: open.stream, protocol: "" });
    const client = (await pending).webSocket!;
    client.accept();
    const closed = new Promise<number>((resolve) => client.addEventListener("close", (event) => resolve(event.code)));
    client.send(new Uint8Array(MAX_WS_MESSAGE_BYTES + 1));
    const told = await agent.waitFor((m) => m.type === "ws_close" && m.stream === open.stream);
    expect(told).toEqual({ type: "ws_close", stream: open.stream, code: 1009, reason: "message too big for the proxy" });
    expect(await closed).toBe(1009);
    agent.disconnect();
  });
});
