// What an instance gets of its host's memory and CPUs: its MachineDO computes it at the reservation
// from what the agent's hello said, by the same rule the agent limits the container with
// (protocol/resource-share.ts), and the instance object shows it.
import { beforeAll, describe, expect, it } from "vitest";
import { resourceShare } from "../../../protocol/resource-share.ts";
import { callJson, newAccount, seedGpuModels } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";

const GIB = 1024 ** 3;
const host = { memory_bytes: 256 * GIB, cpus: 32 };

async function launchOn(agent: FakeAgent, gpuCount: number): Promise<Record<string, unknown>> {
  const { key } = await newAccount(100_000_000);
  const launched = await callJson<{ id: string }>("POST", "/v1/instances", { key, body: { gpu_model: "h100-80gb", gpu_count: gpuCount, template: "pytorch" } });
  expect(launched.status).toBe(201);
  return (await callJson("GET", `/v1/instances/${launched.body.id}`, { key })).body;
}

beforeAll(seedGpuModels);

describe("an instance's memory and CPUs", () => {
  it("are its GPUs' share of the host, as the agent limits its container, in whole GiB and hundredths of a CPU", async () => {
    const agent = await FakeAgent.register(`share-${crypto.randomUUID()}`);
    await agent.connect(Array(4).fill("h100-80gb"), [], [], { host });
    const instance = await launchOn(agent, 2);
    const share = resourceShare(host, 4, 2);
    expect(instance).toMatchObject({ memory_gb: Math.floor(share.memory_bytes / GIB), vcpus: Math.floor(share.nano_cpus / 1e7) / 100 });
    // 256 GiB less a 25.6 GiB reserve, half of it; 32 CPUs less 2, half of them.
    expect(instance).toMatchObject({ memory_gb: 115, vcpus: 15 });
    agent.disconnect();
  });

  it("are null on a host whose agent has not said what it has (an older agent)", async () => {
    const agent = await FakeAgent.register(`share-${crypto.randomUUID()}`);
    await agent.connect(["h100-80gb"]);
    expect(await launchOn(agent, 1)).toMatchObject({ memory_gb: null, vcpus: null });
    agent.disconnect();
  });
});
