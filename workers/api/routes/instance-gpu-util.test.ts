// The instance object's gpu_util_percent through the real Worker, AccountDO and MachineDO, the samples
// sent by an agent speaking the protocol: null before any sample, the last sample's mean over the
// instance's GPUs after, null again once no current sample names it or the instance is not running.
import { beforeAll, describe, expect, it } from "vitest";
import { CURRENT_SAMPLE_MS } from "../../../durable-objects/contracts/idle-stop.ts";
import type { InstanceUsage } from "../../../protocol/index.ts";
import { call, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";
import { until } from "../../../test/support/workerd/poll.ts";
import { advanceClock, freezeClockInEachTest } from "../../../test/support/workerd/test-clock.ts";

freezeClockInEachTest();

let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("gpu-util-host", Array(8).fill("rtx4090"));
});

type Shown = { id: string; status: string; gpu_util_percent: number | null };

const gpusOf = async (id: string) => (await agent.waitForCommand(id, "create")).spec!.gpu_indices;

function usage(id: string, indices: number[], utils: (number | null)[]): InstanceUsage {
  return {
    instance_id: id, cpu_percent: 50, memory_used_mib: 1024,
    gpus: indices.map((index, n) => ({ index, util_percent: utils[n] ?? null, memory_used_mib: 1000, memory_total_mib: 24_564, power_w: 100, power_limit_w: 450, temperature_c: 50, sm_clock_mhz: 2000 })),
  };
}

const shown = async (key: string, id: string) => (await callJson<Shown>("GET", `/v1/instances/${id}`, { key })).body;
const listed = async (key: string, id: string) =>
  (await callJson<{ items: Shown[] }>("GET", "/v1/instances", { key })).body.items.find((i) => i.id === id)!;

describe("the instance's gpu_util_percent", () => {
  it("is null before any sample, then the last sample's mean over its GPUs, in GET and in the list", async () => {
    const { key } = await newAccount();
    const id = await runningOn(agent, key, { gpu_count: 2 });
    const gpus = await gpusOf(id);
    expect(await shown(key, id)).toMatchObject({ status: "running", gpu_util_percent: null });
    expect((await listed(key, id)).gpu_util_percent).toBeNull();

    agent.send({ type: "metrics", instances: [usage(id, gpus, [40, 75])] });
    await until(() => shown(key, id), (i) => i.gpu_util_percent === 57.5, "the sample's mean");
    expect((await listed(key, id)).gpu_util_percent).toBe(57.5);

    advanceClock(10_000);
    agent.send({ type: "metrics", instances: [usage(id, gpus, [3, null])] });
    await until(() => shown(key, id), (i) => i.gpu_util_percent === 3, "the newer sample, its unreadable GPU left out");
  });

  it("is null once the last sample is more than a minute old, and for an instance that is not running", async () => {
    const { key } = await newAccount();
    const id = await runningOn(agent, key);
    const other = await runningOn(agent, key);
    agent.send({ type: "metrics", instances: [usage(id, await gpusOf(id), [90]), usage(other, await gpusOf(other), [20])] });
    await until(() => shown(key, id), (i) => i.gpu_util_percent === 90, "the sample");

    advanceClock(CURRENT_SAMPLE_MS - 10_000);
    expect((await shown(key, id)).gpu_util_percent).toBe(90);
    advanceClock(20_000);
    expect((await shown(key, id)).gpu_util_percent).toBeNull();

    agent.send({ type: "metrics", instances: [usage(id, await gpusOf(id), [90]), usage(other, await gpusOf(other), [20])] });
    await until(() => shown(key, other), (i) => i.gpu_util_percent === 20, "the next sample");
    expect((await call("POST", `/v1/instances/${other}/stop`, { key })).status).toBe(204);
    expect(await listed(key, other)).toMatchObject({ status: "stopped", gpu_util_percent: null });
    expect((await listed(key, id)).gpu_util_percent).toBe(90);
  });
});
