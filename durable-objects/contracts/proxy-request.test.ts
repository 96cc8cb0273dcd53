// The typed value the Worker hands the MachineDO for a proxied exchange, and the refusal it may get
// back: one encoding each, checked on arrival.
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeProxyRequest, encodeProxyRequest, PROXY_REFUSAL_HEADER, PROXY_REQUEST_HEADER, proxyRequest, refusalOf, refusalResponse,
  type ProxyCredential, type ProxyRequest,
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

describe("the proxy request, checked without zod", () => {
  // A valid request, its credential and session each of every kind or of none, then maybe one field
  // (of the request, its credential, its opener or its session) replaced by a value at or around a
  // bound or of another JSON kind: a check looser or stricter than the schema's shows.
  const text = fc.string({ maxLength: 4 });
  const sha = fc.constantFrom("ab".repeat(32), "AB".repeat(32), "ab".repeat(31), "g".repeat(64));
  const edge = fc.oneof(
    { arbitrary: fc.constantFrom(0, 1, 65535, 65536, 2 ** 53, 2 ** 53 + 2, -1, 1.5), weight: 4 },
    { arbitrary: fc.constantFrom("", "/", "x", "1", true, null, [], {}, ["a"], [["a", "b"]], [["a"]], [["a", 1]]), weight: 4 },
    fc.constantFrom("ab".repeat(32), "ses-abcdefghijkl", "ses-abcdefghijk1", "key", "session", "ssh", "terminal", "instance_token", "admitted_by_account", "app_session"),
    fc.integer(), fc.double(), text, fc.array(text, { maxLength: 2 }),
    fc.array(fc.array(fc.oneof(text, fc.integer()), { maxLength: 3 }), { maxLength: 3 }),
    fc.record({ kind: fc.constantFrom("key", "session", "ssh", "terminal"), key_sha256: sha, session_id: text, cols: fc.integer(), keys: fc.constant([]) }),
  );
  const opener = fc.oneof(
    fc.constant(null), fc.record({ kind: fc.constant("key"), key_sha256: sha }),
    fc.record({ kind: fc.constant("session"), session_id: fc.constantFrom("ses-abcdefghijkl", "ses-abcdefghijk1", "ses-abc") }),
  );
  const credential = fc.oneof(
    fc.record({ kind: fc.constant("key"), key_sha256: sha }), fc.record({ kind: fc.constant("instance_token"), token: text }),
    fc.record({ kind: fc.constant("admitted_by_account"), opener }), fc.record({ kind: fc.constant("app_session"), session_sha256: sha }),
  );
  const session = fc.oneof(
    fc.constant(undefined),
    fc.record({ kind: fc.constant("ssh"), keys: fc.array(fc.record({ id: text, type: text, blob: text }), { maxLength: 2 }) }),
    fc.record({ kind: fc.constant("terminal"), cols: fc.integer(), rows: fc.integer() }),
  );
  const valid = fc.record({
    instanceId: fc.constantFrom("i-aaaaaaaaaaaaaaaa", "x"), port: fc.integer({ min: 1, max: 65535 }), target: fc.constantFrom("/", "/a?b=1"),
    method: fc.constantFrom("GET", "POST"), headers: fc.array(fc.tuple(text, text), { maxLength: 3 }), credential, requestId: text,
    websocket: fc.option(fc.record({ protocols: fc.array(text, { maxLength: 2 }) })), session,
  });
  const place = fc.constantFrom(
    "instanceId", "port", "target", "method", "headers", "credential", "requestId", "websocket", "session", "extra",
    "credential.key_sha256", "credential.token", "credential.opener", "credential.session_sha256", "credential.kind", "credential.extra",
    "credential.opener.key_sha256", "credential.opener.session_id", "credential.opener.kind", "websocket.protocols",
    "session.kind", "session.keys", "session.cols", "session.rows", "session.extra",
  );
  const request = fc.tuple(valid, fc.option(fc.tuple(place, edge))).map(([base, change]) => {
    const raw = JSON.parse(JSON.stringify(base)) as Record<string, unknown>;
    if (change === null) return raw;
    const path = change[0].split(".");
    let into: unknown = raw;
    for (const step of path.slice(0, -1)) into = typeof into === "object" && into !== null ? (into as Record<string, unknown>)[step] : undefined;
    if (typeof into === "object" && into !== null) (into as Record<string, unknown>)[path.at(-1)!] = change[1];
    return raw;
  });

  it("decodes exactly as its schema does, accepting the same requests and dropping unknown fields", () => {
    fc.assert(fc.property(request, (raw) => {
      const text = JSON.stringify(raw);
      const expected = proxyRequest.safeParse(JSON.parse(text));
      const decoded = decodeProxyRequest(text);
      expect(decoded.ok).toBe(expected.success);
      if (decoded.ok) expect(decoded.request).toStrictEqual(expected.data);
    }), { numRuns: 20000 });
  });
});
