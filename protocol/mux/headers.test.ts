// The header rules of the proxy: what the upstream gets under each policy, and what the client gets back.
import { describe, expect, it } from "vitest";
import { appOriginPolicy, clientResponseHeaders, offeredSubprotocols, pathProxyPolicy, upstreamRequestHeaders } from "./headers.ts";

const forwarded = { clientIp: "203.0.113.9", url: "https://gpu.example.com/v1/instances/i-x/proxy/8000/a?b=1" };
const prefix = "/v1/instances/i-x/proxy/8000";

describe("upstream request headers under the path proxy policy", () => {
  const upstream = (headers: Record<string, string>) => upstreamRequestHeaders(new Headers(headers), pathProxyPolicy(prefix), forwarded);

  it("removes the caller's credentials and cookies, and X-Upstream-Authorization becomes Authorization", () => {
    const headers = upstream({ authorization: "Bearer gpk_caller", cookie: "session=secret; gpr_app=x", "x-upstream-authorization": "Bearer up", accept: "*/*" });
    expect(Object.fromEntries(headers)).toEqual({
      accept: "*/*",
      authorization: "Bearer up",
      "x-forwarded-for": "203.0.113.9",
      "x-forwarded-host": "gpu.example.com",
      "x-forwarded-prefix": prefix,
      "x-forwarded-proto": "https",
    });
  });

  it("sends no Authorization at all when the caller gave no X-Upstream-Authorization", () => {
    expect(Object.fromEntries(upstream({ authorization: "Bearer gpk_caller" })).authorization).toBeUndefined();
  });

  it("drops hop-by-hop headers, the headers Connection names, the client's Host and platform headers", () => {
    const headers = upstream({
      connection: "keep-alive, x-private", "keep-alive": "timeout=5", te: "trailers", upgrade: "websocket", "proxy-authorization": "p",
      "x-private": "hop", host: "gpu.example.com", "cf-connecting-ip": "1.2.3.4", "x-gpr-proxy-request": "{}", "x-custom": "kept",
    });
    expect(headers.map(([name]) => name).filter((name) => !name.startsWith("x-forwarded-"))).toEqual(["x-custom"]);
  });

  it("keeps Content-Length and the WebSocket handshake headers (the agent's ws client writes its own)", () => {
    const headers = Object.fromEntries(upstream({ "content-length": "5", "sec-websocket-protocol": "chat", "sec-websocket-key": "k" }));
    expect(headers).toMatchObject({ "content-length": "5", "sec-websocket-protocol": "chat", "sec-websocket-key": "k" });
  });

  it("sends only the service's own word on where the request came from: the caller's X-Forwarded-*, Forwarded and X-Real-IP never cross", () => {
    const headers = Object.fromEntries(upstream({
      "x-forwarded-for": "10.0.0.1", "x-forwarded-proto": "gopher", "x-forwarded-host": "evil", "x-forwarded-prefix": "/evil", "x-forwarded-port": "1",
      forwarded: "for=10.0.0.1", "x-real-ip": "10.0.0.1", host: "api.test",
    }));
    expect(headers).toEqual({ "x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https", "x-forwarded-host": "api.test", "x-forwarded-prefix": prefix });
  });
});

describe("upstream request headers under the app-origin policy", () => {
  // An instance web app on its own origin: its own credentials and cookies pass, the platform's session cookie does not.
  const appOrigin = appOriginPolicy(["gpr_app", "__Host-gpr_app"]);

  it("passes Authorization and the app's cookies, removes only the named platform cookie, and sends no prefix", () => {
    const headers = Object.fromEntries(upstreamRequestHeaders(
      new Headers({ authorization: "Bearer app-session", cookie: "a=1; gpr_app=secret;b=2; __Host-gpr_app=secret", "x-forwarded-prefix": "/spoofed" }),
      appOrigin,
      forwarded,
    ));
    expect(headers).toEqual({
      authorization: "Bearer app-session",
      cookie: "a=1; b=2",
      "x-forwarded-for": "203.0.113.9",
      "x-forwarded-host": "gpu.example.com",
      "x-forwarded-proto": "https",
    });
  });

  it("drops the Cookie header when only the platform cookie was in it", () => {
    expect(Object.fromEntries(upstreamRequestHeaders(new Headers({ cookie: "gpr_app=secret" }), appOrigin, forwarded)).cookie).toBeUndefined();
  });

  it("removes every platform cookie of that name, however spaced, and keeps names that only begin with it", () => {
    const headers = Object.fromEntries(upstreamRequestHeaders(new Headers({ cookie: "gpr_app=a; gpr_app_x=1;gpr_app =b; x=gpr_app" }), appOrigin, forwarded));
    expect(headers.cookie).toBe("gpr_app_x=1; x=gpr_app");
  });

  it("still keeps the caller's X-Upstream-Authorization and platform headers away from the app", () => {
    const headers = Object.fromEntries(upstreamRequestHeaders(new Headers({ "x-upstream-authorization": "Bearer x", "cf-connecting-ip": "1.2.3.4", "x-gpr-proxy-request": "{}" }), appOrigin, forwarded));
    expect(Object.keys(headers).sort()).toEqual(["x-forwarded-for", "x-forwarded-host", "x-forwarded-proto"]);
  });
});

describe("client response headers", () => {
  it("keep several Set-Cookie apart and drop hop-by-hop headers and those Connection names", () => {
    const headers = clientResponseHeaders([
      ["Set-Cookie", "a=1"], ["Set-Cookie", "b=2"], ["Transfer-Encoding", "chunked"], ["Connection", "close, X-Hop"],
      ["X-Hop", "1"], ["Keep-Alive", "timeout=5"], ["Content-Type", "text/plain"],
    ]);
    expect(headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect([...new Set(headers.keys())]).toEqual(["content-type", "set-cookie"]);
  });

  it("drop the platform's own headers an upstream sends, and carry our request id in place of the upstream's", () => {
    const upstream: [string, string][] = [["X-Gpr-Proxy-Refusal", "{}"], ["x-gpr-anything", "1"], ["X-Request-Id", "upstream's"], ["etag", "\"a\""]];
    expect([...clientResponseHeaders(upstream, "req_ours")]).toEqual([["etag", "\"a\""], ["x-request-id", "req_ours"]]);
    expect([...clientResponseHeaders(upstream)]).toEqual([["etag", "\"a\""], ["x-request-id", "upstream's"]]);
  });
});

describe("offered subprotocols", () => {
  it("are the client's list in order, blanks dropped", () => {
    expect(offeredSubprotocols(new Headers({ "sec-websocket-protocol": "chat.v2, chat.v1,, " }))).toEqual(["chat.v2", "chat.v1"]);
    expect(offeredSubprotocols(new Headers())).toEqual([]);
  });
});
