// A small response the agent sends whole (an http_response carrying its body, protocol's
// `whole_responses`), through the real Worker and MachineDO in workerd: the client gets the exact
// bytes with its status and headers; a body that is not base64 is the client's 502, not a broken body.
import { describe, expect, it } from "vitest";
import type { ServerMessage } from "../../protocol/messages.ts";
import { call, newAccount } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { runningInstance } from "../../test/support/workerd/proxy-host.ts";

const BYTES = Uint8Array.from({ length: 256 }, (_, i) => i);

describe("a response sent whole", () => {
  it("the welcome offers it, and the client gets the body's exact bytes, status and headers", async () => {
    const agent = await FakeAgent.online(`whole-${crypto.randomUUID()}`, ["h100-80gb"]);
    expect(await agent.waitFor((m) => m.type === "welcome")).toMatchObject({ whole_responses: true });
    agent.onMessage((message: ServerMessage) => {
      if (message.type !== "http_request") return;
      const body = message.path === "/bad" ? "not base64!" : btoa(String.fromCharCode(...BYTES));
      agent.send({ type: "http_response", stream: message.stream, status: 201, headers: [["content-type", "application/octet-stream"], ["content-length", "256"], ["x-up", "1"]], body });
    });
    const { key } = await newAccount();
    const instance = await runningInstance(agent, key);
    const response = await call("GET", `/v1/instances/${instance.id}/proxy/8888/bytes`, { key });
    expect(response.status).toBe(201);
    expect(response.headers.get("x-up")).toBe("1");
    expect(response.headers.get("content-length")).toBe("256");
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(BYTES);
    const bad = await call("GET", `/v1/instances/${instance.id}/proxy/8888/bad`, { key });
    expect(bad.status).toBe(502);
    expect(await bad.json()).toMatchObject({ error: "upstream_unavailable" });
    await agent.leave();
  });
});
