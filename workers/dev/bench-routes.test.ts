// The bench's own Worker routes: off by default; on, a machine's open proxied streams.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE, call } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { benchRoute } from "./bench-routes.ts";

describe("bench routes", () => {
  it("are off unless BENCH_ROUTES is 1: 404 like any unknown route", async () => {
    for (const path of ["/bench/noop", "/bench/passthrough/8000/", "/bench/open-streams/1"]) {
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
});
