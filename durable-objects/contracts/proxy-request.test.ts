// The typed value the Worker hands the MachineDO for a proxied exchange, and the refusal it may get
// back: one encoding each, checked on arrival.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  decodeProxyRequest, encodeProxyRequest, PROXY_REFUSAL_HEADER, PROXY_REQUEST_HEADER, refusalOf, refusalResponse, type ProxyCredential,
  type ProxyRequest,
} from "./proxy-request.ts";
import type { Opener } from "./opener.ts";

const request: ProxyRequest = {
  instanceId: "i-aaaaaaaaaaaaaaaa",
  port: 8000,
  target: "/a%20b?x=1",
  method: "POST",
  headers: [["x-name", "Zoë \u00ff"], ["accept", "*/*"]],
  credential: { kind: "key", key_sha256: "ab".repeat(32) },
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
    const admitted: Opener[] = [{ kind: "key", key_sha256: "cd".repeat(32) }, { kind: "session", session_id: "ses-abcdefghijkl" }];
    const credentials: ProxyCredential[] = [{ kind: "instance_token", token: "gpi_x" }, ...[null, ...admitted].map((opener) => ({ kind: "admitted_by_account" as const, opener }))];
    for (const credential of credentials) {
      expect(decodeProxyRequest(encodeProxyRequest({ ...request, credential }))).toEqual({ ok: true, request: { ...request, credential } });
    }
  });

  it.each([
    ["missing", null, "is missing"],
    ["not JSON", "{oops", "is not JSON"],
    ["a port out of range", JSON.stringify({ ...request, port: 70000 }), "port"],
    ["a target that is not a path", JSON.stringify({ ...request, target: "x" }), "target"],
    ["a header that is not a pair", JSON.stringify({ ...request, headers: [["a"]] }), "headers"],
    ["no websocket field", JSON.stringify({ ...request, websocket: undefined }), "websocket"],
    ["no credential", JSON.stringify({ ...request, credential: undefined }), "credential"],
    ["a key that is no SHA-256", JSON.stringify({ ...request, credential: { kind: "key", key_sha256: "gpk_acc-x_y" } }), "credential.key_sha256"],
    ["an unknown credential kind", JSON.stringify({ ...request, credential: { kind: "session" } }), "credential"],
    ["an admission that does not say who", JSON.stringify({ ...request, credential: { kind: "admitted_by_account" } }), "credential.opener"],
    ["an admitted session that is no session id", JSON.stringify({ ...request, credential: { kind: "admitted_by_account", opener: { kind: "session", session_id: "x" } } }), "credential.opener.session_id"],
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

  it("a refusal round-trips through its header, the request body handed back in the response", async () => {
    const refused = refusalResponse({ kind: "refused", code: "not_running", message: "instance i-x is stopped, not running" }, new Blob(["body"]).stream());
    expect(refused.status).toBe(409);
    expect(refusalOf(refused)).toEqual({ kind: "refused", code: "not_running", message: "instance i-x is stopped, not running" });
    expect(await refused.text()).toBe("body");
    const ask = refusalResponse({ kind: "ask_account" }, null);
    expect(refusalOf(ask)).toEqual({ kind: "ask_account" });
    expect(refusalOf(new Response("upstream"))).toBeNull();
  });

  it("an unreadable refusal header is an internal error, never an open stream", () => {
    for (const value of ["{oops", JSON.stringify({ kind: "refused", code: "teapot", message: "x" })]) {
      expect(refusalOf(new Response(null, { headers: { [PROXY_REFUSAL_HEADER]: value } }))).toEqual({ kind: "refused", code: "internal", message: expect.stringContaining(PROXY_REFUSAL_HEADER) });
    }
  });
});
