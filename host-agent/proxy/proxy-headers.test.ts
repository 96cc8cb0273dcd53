// Header handling of the agent's own hop to the container port.
import { describe, expect, it } from "vitest";
import { responseHeaderPairs, upstreamRequestHeaders, upstreamWsHeaders } from "./proxy-headers.ts";

describe("proxy headers", () => {
  it("replaces the client's host, keeps repeats, targets localhost:<port>", () => {
    const headers = upstreamRequestHeaders([["Host", "gpu.example.com"], ["Accept", "a"], ["accept", "b"], ["Authorization", "Bearer up"]], 8000);
    expect(headers).toEqual({ accept: ["a", "b"], authorization: "Bearer up", host: "localhost:8000" });
  });

  it("leaves the WebSocket handshake headers to the ws client", () => {
    expect(upstreamWsHeaders([["Sec-WebSocket-Key", "k"], ["Sec-WebSocket-Protocol", "p"], ["Origin", "o"]], 3000)).toEqual({ origin: "o", host: "localhost:3000" });
  });

  it("keeps several Set-Cookie response headers apart, in order", () => {
    expect(responseHeaderPairs(["Set-Cookie", "a=1", "Set-Cookie", "b=2", "Content-Type", "text/plain"])).toEqual([
      ["Set-Cookie", "a=1"],
      ["Set-Cookie", "b=2"],
      ["Content-Type", "text/plain"],
    ]);
  });
});
