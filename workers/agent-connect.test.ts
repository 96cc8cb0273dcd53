// The agent endpoint's token check without an upgrade (what `gpu-rental-agent doctor` asks): it
// answers whether the token is right and never takes the live agent's connection over.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin } from "../test/support/workerd/api-client.ts";
import { FakeAgent } from "../test/support/workerd/fake-agent.ts";

const probe = (method: string, token?: string) =>
  exports.default.fetch(new Request("http://gpu.test/agent/v1/connect", { method, headers: token ? { authorization: `Bearer ${token}` } : {} }));

const online = async (id: number) => ((await admin("GET", "/machines")).body.items as { id: number; online: boolean }[]).find((m) => m.id === id)!.online;

describe("agent token check", () => {
  it("a GET with the machine's token is 204 and leaves the connected agent online and in charge", async () => {
    const agent = await FakeAgent.register("probed");
    await agent.connect(["rtx4090"]);
    const response = await probe("GET", agent.token);
    expect(response.status).toBe(204);
    expect(response.webSocket).toBeNull();
    expect(await online(agent.machineId)).toBe(true);
    agent.report("i-aaaaaaaaaaaaaaaa", "stopped");
    await agent.waitForCommand("i-aaaaaaaaaaaaaaaa", "destroy");
    agent.disconnect();
  });

  it.each([
    ["no token", undefined],
    ["a wrong secret", "gma_1_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"],
    ["a machine that does not exist", "gma_999_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"],
  ])("a GET with %s is 401", async (_, token) => {
    await FakeAgent.register("probe-refused");
    const response = await probe("GET", token);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "unauthorized", message: expect.any(String) });
  });

  it("anything but a GET or an upgrade is 400", async () => {
    const agent = await FakeAgent.register("probe-post");
    const response = await probe("POST", agent.token);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "bad_request", message: "expected a WebSocket upgrade, or a GET to check the token" });
  });
});
