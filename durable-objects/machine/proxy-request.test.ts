// The typed value the Worker hands the MachineDO for a proxied exchange: one encoding, checked on arrival.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { decodeProxyRequest, encodeProxyRequest, PROXY_REQUEST_HEADER, type ProxyRequest } from "./proxy-request.ts";

const request: ProxyRequest = {
  instanceId: "i-aaaaaaaaaaaaaaaa",
  port: 8000,
  target: "/a%20b?x=1",
  method: "POST",
  headers: [["x-name", "Zoë \u00ff"], ["accept", "*/*"]],
  requestId: "req_1",
  websocket: null,
};

describe("proxy request", () => {
  it("round-trips through a header, non-ASCII header values included", () => {
    const encoded = encodeProxyRequest(request);
    expect(encoded).toMatch(/^[\x20-\x7e]+$/);
    const headers = new Headers({ [PROXY_REQUEST_HEADER]: encoded });
    expect(decodeProxyRequest(headers.get(PROXY_REQUEST_HEADER))).toEqual({ ok: true, request });
    const websocket = { ...request, method: "GET", websocket: { protocols: ["chat.v1"] } };
    expect(decodeProxyRequest(encodeProxyRequest(websocket))).toEqual({ ok: true, request: websocket });
  });

  it.each([
    ["missing", null, "is missing"],
    ["not JSON", "{oops", "is not JSON"],
    ["a port out of range", JSON.stringify({ ...request, port: 70000 }), "port"],
    ["a target that is not a path", JSON.stringify({ ...request, target: "x" }), "target"],
    ["a header that is not a pair", JSON.stringify({ ...request, headers: [["a"]] }), "headers"],
    ["no websocket field", JSON.stringify({ ...request, websocket: undefined }), "websocket"],
  ])("is refused when %s, naming where", (_, value, where) => {
    const decoded = decodeProxyRequest(value);
    expect(decoded.ok).toBe(false);
    expect(!decoded.ok && decoded.reason).toContain(where);
  });

  it("the MachineDO answers a proxy fetch without it with 400 bad_request", async () => {
    const response = await env.MACHINES.getByName("proxy-request-test").fetch("https://machine/proxy");
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "bad_request", message: `${PROXY_REQUEST_HEADER} is missing` });
  });
});
