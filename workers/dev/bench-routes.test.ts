// The bench's own Worker routes: off by default; on, a machine's open proxied streams and the binary
// WebSocket bytes its agent has sent.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE, call } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { until } from "../../test/support/workerd/poll.ts";
import { DataKind } from "../../protocol/index.ts";
import { benchRoute } from "./bench-routes.ts";

describe("bench routes", () => {
  it("are off unless BENCH_ROUTES is 1: 404 like any unknown route", async () => {
    for (const path of ["/bench/noop", "/bench/passthrough/8000/", "/bench/open-streams/1", "/bench/agent-ws-bytes/1"]) {
      const response = await call("GET", path);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: "not_found", message: expect.any(String) });
    }
  });

  it("with BENCH_ROUTES 1, /bench/open-streams/{machine} answers how many proxied streams its MachineDO has open", async () => {
    const agent = await FakeAgent.register("bench-streams");
    const response = await benchRoute(new Request(`${BASE}/bench/open-streams/${agent.machineId}`), { ...env, BENCH_ROUTES: "1" });
    expect(await response?.json()).toEqual({ open_streams: 0 });
  });

  it("with BENCH_ROUTES 1, /bench/agent-ws-bytes/{machine} counts the payload of the agent's binary WebSocket data frames, nothing else", async () => {
    const agent = await FakeAgent.online("bench-ws-bytes", ["rtx4090"]);
    const bytes = async () => {
      const response = await benchRoute(new Request(`${BASE}/bench/agent-ws-bytes/${agent.machineId}`), { ...env, BENCH_ROUTES: "1" });
      return ((await response!.json()) as { bytes: number }).bytes;
    };
    expect(await bytes()).toBe(0);
    // Frames of a stream that is not open are dropped by the bridge, but they did arrive.
    agent.sendData(DataKind.wsBinary, 99, new Uint8Array(10));
    agent.sendData(DataKind.body, 99, new Uint8Array(1000));
    agent.sendData(DataKind.wsText, 99, new Uint8Array(100));
    agent.sendData(DataKind.wsBinary, 99, new Uint8Array(5));
    expect(await until(bytes, (n) => n === 15, "the two binary frames to be counted")).toBe(15);
    agent.disconnect();
  });
});
