// The operator's hold on a machine's agent token: replacing it refuses the old one from then on and
// cuts off the agent it connected; retiring the machine, only while nothing lives on it, makes its
// token open nothing and takes it out of the fleet.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { admin, newAccount, machineOnline } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { until } from "../../test/support/workerd/poll.ts";
import { runningInstance } from "../../test/support/workerd/proxy-host.ts";

const connectWith = (token: string) =>
  exports.default.fetch(new Request("http://gpu.test/agent/v1/connect", { headers: { authorization: `Bearer ${token}` } }));

describe("POST /admin/v1/machines/{id}/token", () => {
  it("answers a new token, refuses the old one from then on, and cuts off the agent connected with it", async () => {
    const agent = await FakeAgent.online(`token-${crypto.randomUUID()}`, ["h100-80gb"]);
    const replaced = await admin("POST", `/machines/${agent.machineId}/token`);
    expect(replaced).toMatchObject({ status: 200, body: { token: expect.stringMatching(new RegExp(`^gma_${agent.machineId}_`)) } });
    await until(async () => agent.closedWith, (code) => code === 4003, "the agent cut off");
    await until(() => machineOnline(agent.machineId), (online) => !online, "the machine offline");
    expect((await connectWith(agent.token)).status).toBe(401);
    expect((await connectWith(replaced.body.token as string)).status).toBe(204);
  });

  it("is 404 for a machine that does not exist and 400 for an id that is not one", async () => {
    expect((await admin("POST", "/machines/999999/token")).status).toBe(404);
    expect(await admin("POST", "/machines/abc/token")).toMatchObject({ status: 400, body: { error: "invalid", message: expect.stringContaining("id") } });
  });
});

describe("DELETE /admin/v1/machines/{id}", () => {
  it("is 409 conflict while an instance lives on the machine, and nothing changes", async () => {
    const agent = await FakeAgent.online(`busy-${crypto.randomUUID()}`, ["h100-80gb"]);
    const { key } = await newAccount();
    await runningInstance(agent, key);
    expect(await admin("DELETE", `/machines/${agent.machineId}`)).toMatchObject({ status: 409, body: { error: "conflict", message: expect.stringContaining("1 instance") } });
    expect(await machineOnline(agent.machineId)).toBe(true);
    agent.disconnect();
  });

  it("retires an empty machine: gone from the fleet, its token opens nothing, its agent cut off", async () => {
    const agent = await FakeAgent.online(`empty-${crypto.randomUUID()}`, ["h100-80gb"]);
    expect((await admin("DELETE", `/machines/${agent.machineId}`)).status).toBe(204);
    const machines = (await admin("GET", "/machines")).body.items as { id: number }[];
    expect(machines.some((m) => m.id === agent.machineId)).toBe(false);
    expect((await connectWith(agent.token)).status).toBe(401);
    await until(async () => agent.closedWith, (code) => code === 4003, "the agent cut off");
    expect((await admin("DELETE", `/machines/${agent.machineId}`)).status).toBe(404);
  });
});
