// A start takes back exactly the GPUs its container was created with: the container keeps those
// devices, so a start that reserved others would leave the reservation and the container apart.
import { describe, expect, it } from "vitest";
import { callJson, newAccount } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { until } from "../../test/support/workerd/poll.ts";

const launch = async (agent: FakeAgent, key: string) => {
  const { body } = await callJson<{ id: string }>("POST", "/v1/instances", { key, body: { gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" } });
  const create = await agent.waitForCommand(body.id, "create");
  agent.report(body.id, "running");
  await until(() => callJson<{ status: string }>("GET", `/v1/instances/${body.id}`, { key }), (r) => r.body.status === "running", "running");
  return { id: body.id, indices: create.spec!.gpu_indices };
};

describe("starting a stopped instance", () => {
  it("is 409 gpus_busy while another instance holds its GPUs, even with other GPUs free, and takes its own back once they are", async () => {
    const agent = await FakeAgent.online(`start-indices-${crypto.randomUUID()}`, ["h100-80gb", "h100-80gb"]);
    const { key } = await newAccount(1_000_000_000);
    const first = await launch(agent, key);
    expect((await callJson("POST", `/v1/instances/${first.id}/stop`, { key })).status).toBe(204);
    agent.report(first.id, "stopped");
    const second = await launch(agent, key);
    expect(second.indices).toEqual(first.indices);
    expect(await callJson("POST", `/v1/instances/${first.id}/start`, { key })).toMatchObject({ status: 409, body: { error: "gpus_busy" } });
    expect((await callJson("DELETE", `/v1/instances/${second.id}`, { key })).status).toBe(204);
    expect((await callJson("POST", `/v1/instances/${first.id}/start`, { key })).status).toBe(204);
    agent.disconnect();
  });
});
