// A small response the agent sends whole, through the real Worker and MachineDO in workerd: as a
// binary response frame (protocol's `response_frames`, which the MachineDO hands the Worker unread)
// or, from an older agent, as an http_response carrying its body in base64 (`whole_responses`). The
// client gets the exact bytes with its status and the headers the header rule lets through; a
// malformed frame, head or body is the client's 502, not a broken body, and the host's other
// streams go on.
import { describe, expect, it } from "vitest";
import { asciiJson, encodeResponseFrame, type ServerMessage } from "../../protocol/index.ts";
import { call, newAccount } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { runningInstance } from "../../test/support/workerd/proxy-host.ts";

const BYTES = Uint8Array.from({ length: 256 }, (_, i) => i);
const HEADERS: [string, string][] = [
  ["content-type", "application/octet-stream"], ["content-length", "256"], ["x-up", "1"], ["x-many", "1"], ["x-many", "2"],
  // Never the client's: hop-by-hop, the platform's own, and a request id of the upstream's.
  ["connection", "x-hop"], ["x-hop", "1"], ["x-gpr-proxy-refusal", '{"kind":"ask_account"}'], ["x-request-id", "upstream's"],
];

/** What the agent sends for a request to each path, as a response frame. */
function frameFor(stream: number, path: string): Uint8Array {
  switch (path) {
    case "/head-not-json":
      return encodeResponseFrame(stream, 200, "[not json", BYTES);
    case "/head-not-pairs":
      return encodeResponseFrame(stream, 200, '[["a"]]', BYTES);
    case "/bad-header-name":
      return encodeResponseFrame(stream, 200, asciiJson([["bad name", "1"]]), BYTES);
    case "/no-status":
      return encodeResponseFrame(stream, 150, "[]", BYTES);
    case "/truncated":
      return encodeResponseFrame(stream, 200, asciiJson(HEADERS), BYTES).subarray(0, 8);
    case "/empty":
      return encodeResponseFrame(stream, 204, "[]", new Uint8Array());
    default:
      return encodeResponseFrame(stream, 201, asciiJson(HEADERS), BYTES);
  }
}

async function hostWith(answer: (agent: FakeAgent, request: Extract<ServerMessage, { type: "http_request" }>) => void) {
  const agent = await FakeAgent.online(`whole-${crypto.randomUUID()}`, ["h100-80gb"]);
  const welcome = await agent.waitFor((m) => m.type === "welcome");
  agent.onMessage((message: ServerMessage) => {
    if (message.type === "http_request") answer(agent, message);
  });
  const { key } = await newAccount();
  const instance = await runningInstance(agent, key);
  const get = (path: string, method = "GET") => call(method, `/v1/instances/${instance.id}/proxy/8888${path}`, { key });
  return { agent, welcome, get };
}

async function expectWhole(response: Response, status: number): Promise<void> {
  expect(response.status).toBe(status);
  expect(response.headers.get("x-up")).toBe("1");
  expect(response.headers.get("x-many")).toBe("1, 2");
  expect(response.headers.get("content-length")).toBe("256");
  expect(response.headers.get("x-request-id")).toMatch(/^req_/);
  for (const name of ["connection", "x-hop", "x-gpr-proxy-refusal", "x-gpr-upstream-head"]) expect(response.headers.has(name), name).toBe(false);
  expect(new Uint8Array(await response.arrayBuffer())).toEqual(BYTES);
}

describe("a response sent whole", () => {
  it("as a response frame: the welcome offers it, and the client gets the body's exact bytes, its status and the headers it may see", async () => {
    const { agent, welcome, get } = await hostWith((agent, request) => agent.sendBinary(frameFor(request.stream, request.path)));
    expect(welcome).toMatchObject({ whole_responses: true, response_frames: true });
    await expectWhole(await get("/bytes"), 201);
    const empty = await get("/empty");
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe("");
    const head = await get("/bytes", "HEAD");
    expect([head.status, await head.text()]).toEqual([201, ""]);
    await agent.leave();
  });

  it("a malformed frame or head is that request's 502, and the host's next request is answered", async () => {
    const { agent, get } = await hostWith((agent, request) => agent.sendBinary(frameFor(request.stream, request.path)));
    for (const path of ["/head-not-json", "/head-not-pairs", "/bad-header-name", "/no-status", "/truncated"]) {
      const bad = await get(path);
      expect(bad.status, path).toBe(502);
      expect(await bad.json(), path).toMatchObject({ error: "upstream_unavailable", message: expect.stringContaining("malformed") });
    }
    await expectWhole(await get("/bytes"), 201);
    await agent.leave();
  });

  it("a response frame for a stream that is not open is dropped without harm", async () => {
    const { agent, get } = await hostWith((agent, request) => {
      agent.sendBinary(frameFor(request.stream + 1000, "/bytes"));
      agent.sendBinary(frameFor(request.stream, request.path));
    });
    await expectWhole(await get("/bytes"), 201);
    await agent.leave();
  });

  it("as an http_response with its body in base64, from an agent before response frames: the same response; a body not base64 is a 502", async () => {
    const { agent, get } = await hostWith((agent, request) => {
      const body = request.path === "/bad" ? "not base64!" : btoa(String.fromCharCode(...BYTES));
      agent.send({ type: "http_response", stream: request.stream, status: 201, headers: HEADERS, body });
    });
    await expectWhole(await get("/bytes"), 201);
    const bad = await get("/bad");
    expect(bad.status).toBe(502);
    expect(await bad.json()).toMatchObject({ error: "upstream_unavailable" });
    await agent.leave();
  });
});
