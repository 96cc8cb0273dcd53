// The hop-by-hop rule every side of the service applies (RFC 9110 §7.6.1).
import { describe, expect, it } from "vitest";
import { hopByHopIn } from "./hop-by-hop.ts";

describe("hopByHopIn", () => {
  it("keeps the standard hop-by-hop fields on their hop, in any case, and passes end-to-end ones", () => {
    const hopByHop = hopByHopIn([]);
    for (const name of ["Connection", "keep-alive", "Proxy-Authenticate", "proxy-authorization", "Proxy-Connection", "TE", "trailer", "Transfer-Encoding", "upgrade"]) {
      expect(hopByHop(name), name).toBe(true);
    }
    for (const name of ["content-type", "Content-Length", "authorization", "set-cookie", "sec-websocket-key"]) expect(hopByHop(name), name).toBe(false);
  });

  it("adds every field any of the message's Connection headers names, trimmed and in any case", () => {
    const hopByHop = hopByHopIn(["keep-alive, X-Hop ", "x-other,,"]);
    expect(["x-hop", "X-HOP", "x-other"].map(hopByHop)).toEqual([true, true, true]);
    expect(hopByHop("x-kept")).toBe(false);
  });
});
