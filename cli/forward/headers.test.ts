import { describe, expect, it } from "vitest";
import { towardsClient, towardsService } from "./headers.ts";

describe("forwarder headers", () => {
  it("adds the key, moves the tool's Authorization to X-Upstream-Authorization, and drops Host, Expect and hop-by-hop headers", () => {
    const raw = ["Host", "127.0.0.1:8000", "Expect", "100-continue", "Authorization", "Bearer tool", "Connection", "keep-alive, X-Hop", "X-Hop", "1", "TE", "trailers", "Accept", "a", "Accept", "b"];
    expect(towardsService(raw, "gpk_key", null)).toEqual([
      "x-upstream-authorization", "Bearer tool", "Accept", "a", "Accept", "b", "authorization", "Bearer gpk_key",
    ]);
  });

  it("keeps an explicit X-Upstream-Authorization over the tool's Authorization", () => {
    expect(towardsService(["X-Upstream-Authorization", "Bearer a", "Authorization", "Bearer b"], "k", null))
      .toEqual(["X-Upstream-Authorization", "Bearer a", "authorization", "Bearer k"]);
  });

  it("asks for the upgrade itself on a WebSocket request, keeping the handshake headers", () => {
    const raw = ["Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Key", "k==", "Sec-WebSocket-Protocol", "chat"];
    expect(towardsService(raw, "k", "websocket")).toEqual([
      "Sec-WebSocket-Key", "k==", "Sec-WebSocket-Protocol", "chat", "authorization", "Bearer k", "connection", "Upgrade", "upgrade", "websocket",
    ]);
  });

  it("passes the answer's headers (several Set-Cookie included) without hop-by-hop ones", () => {
    const raw = ["Content-Type", "text/plain", "Set-Cookie", "a=1", "Set-Cookie", "b=2", "Transfer-Encoding", "chunked", "Keep-Alive", "timeout=5"];
    expect(towardsClient(raw)).toEqual(["Content-Type", "text/plain", "Set-Cookie", "a=1", "Set-Cookie", "b=2"]);
  });
});
