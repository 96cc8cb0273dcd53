// What browsers are told about the service's responses, through the real Worker: its own origin
// (API, operator API, dashboard) under one policy, the path proxy's instance answers sandboxed and
// cookieless, and plain http to a public host sent to https.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ServerMessage } from "../../protocol/messages.ts";
import { call, newAccount } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { runningInstance } from "../../test/support/workerd/proxy-host.ts";

type HttpRequest = Extract<ServerMessage, { type: "http_request" }>;

function expectOriginPolicy(headers: Headers): void {
  const policy = headers.get("content-security-policy") ?? "";
  for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "connect-src 'self'",
    "frame-ancestors 'none'", "base-uri 'none'", "object-src 'none'"]) {
    expect(policy.split("; ")).toContain(directive);
  }
  expect(headers.get("x-content-type-options")).toBe("nosniff");
  expect(headers.get("referrer-policy")).toBe("same-origin");
}

describe("the service's own origin", () => {
  it("answers the API, its errors, the operator API and the dashboard with the policy, nosniff and Referrer-Policy", async () => {
    const { key } = await newAccount();
    for (const response of [
      await call("GET", "/v1/me", { key }),
      await call("GET", "/v1/me"),
      await call("GET", "/v1/no-such-route", { key }),
      await call("GET", "/admin/v1/machines"),
      await call("GET", "/"),
      await call("GET", "/instances/i-aaaaaaaaaaaaaaaa"),
    ]) {
      expectOriginPolicy(response.headers);
      await response.body?.cancel();
    }
  });

  it("adds Strict-Transport-Security over https only", async () => {
    expect((await call("GET", "/v1/me", { base: "https://api.test" })).headers.get("strict-transport-security")).toBe("max-age=31536000");
    expect((await call("GET", "/v1/me")).headers.get("strict-transport-security")).toBeNull();
  });

  it("sends plain http to a public host to https, path and query kept, before reading any credential", async () => {
    // A Worker's fetch follows redirects unless told not to: the test looks at the redirect itself.
    const unfollowed = (url: string, init: RequestInit = {}) => exports.default.fetch(new Request(url, { ...init, redirect: "manual" }));
    const response = await unfollowed("http://api.example.com/v1/instances?x=%20y", { method: "POST", headers: { authorization: "Bearer gpk_not-even-checked" }, body: "{}" });
    expect(response.status).toBe(308);
    expect(response.headers.get("location")).toBe("https://api.example.com/v1/instances?x=%20y");
    const app = await unfollowed("http://i-aaaaaaaaaaaaaaaa-8888.apps.example.net/tree");
    expect([app.status, app.headers.get("location")]).toEqual([308, "https://i-aaaaaaaaaaaaaaaa-8888.apps.example.net/tree"]);
  });

  it("keeps loopback and the names that never leave a machine on http, for the local stack", async () => {
    for (const base of ["http://localhost:8787", "http://127.0.0.1:8787", "http://[::1]:8787", "http://gpu.test", "http://x.localhost"]) {
      const response = await call("GET", "/v1/me", { base });
      expect([base, response.status]).toEqual([base, 401]);
    }
  });
});

describe("the path proxy", () => {
  it("sandboxes an instance's answer and drops the cookies it sets, which the API's origin is not its to hold", async () => {
    const agent = await FakeAgent.online(`headers-${crypto.randomUUID()}`, ["h100-80gb"]);
    const { key } = await newAccount();
    const { id } = await runningInstance(agent, key);
    const pending = call("GET", `/v1/instances/${id}/proxy/8888/page`, { key });
    const request = await agent.waitFor((m): m is HttpRequest => m.type === "http_request");
    agent.send({
      type: "http_response", stream: request.stream, status: 200,
      headers: [["content-type", "text/html"], ["set-cookie", "a=1; Path=/"], ["set-cookie", "b=2"], ["content-security-policy", "default-src *"]],
    });
    agent.send({ type: "end", stream: request.stream });
    const response = await pending;
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(response.headers.get("content-security-policy")).toBe("sandbox");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    await response.body?.cancel();
    agent.disconnect();
  });
});
