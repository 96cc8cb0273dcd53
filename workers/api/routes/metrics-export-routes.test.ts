// GET /v1/metrics through the real Worker, AccountDO and MachineDOs, the samples sent by agents
// speaking the protocol: the exposition's exact text, label values escaped as the format says, only
// the caller's running instances (a stopped one, another account's and one beyond a key's instances
// absent), figures only from a current sample, the account's money, and who may read it.
import { beforeAll, describe, expect, it } from "vitest";
import { clock } from "../../../core/clock.ts";
import { CURRENT_SAMPLE_MS } from "../../../durable-objects/contracts/idle-stop.ts";
import type { InstanceUsage } from "../../../protocol/index.ts";
import { call, callJson, GPU_MODELS, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";
import { joined, ownedAccount } from "../../../test/support/workerd/members.ts";
import { until } from "../../../test/support/workerd/poll.ts";
import { advanceClock, freezeClockInEachTest } from "../../../test/support/workerd/test-clock.ts";

freezeClockInEachTest();

let agent: FakeAgent;
let other: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("export-host", Array(16).fill("rtx4090"));
  // Another model: a launch of it can only go there.
  other = await FakeAgent.online("export-host-h100", ["h100-80gb"]);
});

const MIB = 1024 * 1024;
const HOUR_MS = 3_600_000;
const PRICE = GPU_MODELS.rtx4090.price_hour_micros;

const gpusOf = async (on: FakeAgent, id: string) => (await on.waitForCommand(id, "create")).spec!.gpu_indices;

function sample(id: string, gpuIndices: number[], util: number, cpuSeconds: number | null = 12.5): InstanceUsage {
  return {
    instance_id: id, cpu_percent: 150, ...(cpuSeconds === null ? {} : { cpu_seconds: cpuSeconds }), memory_used_mib: 2048.5,
    gpus: gpuIndices.map((index) => ({
      index, util_percent: util, memory_used_mib: 20_000, memory_total_mib: 24_564, power_w: 300.5, power_limit_w: 450, temperature_c: 66, sm_clock_mhz: 2520,
    })),
  };
}

async function exported(key: string): Promise<{ status: number; type: string | null; text: string }> {
  const response = await call("GET", "/v1/metrics", { key });
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
}

/** Sends `usage` as `on`'s sample and waits until GET /v1/metrics shows `id`'s container memory. */
async function sampled(on: FakeAgent, key: string, id: string, usage: InstanceUsage[]): Promise<string> {
  on.send({ type: "metrics", instances: usage });
  const line = `gpu_rental_container_memory_bytes{instance_id="${id}",`;
  return (await until(() => exported(key), (r) => r.text.includes(line), "the sample in the export")).text;
}

const instanceLines = (text: string, id: string) => text.split("\n").filter((line) => line.includes(`instance_id="${id}"`));

describe("GET /v1/metrics", () => {
  it("answers the exposition format: every family described once, the account's money, each GPU of each running instance and its container", async () => {
    const { key } = await newAccount(50_000_000);
    const id = await runningOn(agent, key, { gpu_count: 2, label: "trainer" });
    const [g0, g1] = await gpusOf(agent, id);
    const text = await sampled(agent, key, id, [sample(id, [g0!, g1!], 97)]);

    const { status, type } = await exported(key);
    expect(status).toBe(200);
    expect(type).toBe("text/plain; version=0.0.4; charset=utf-8");
    const at = (gpu: number) => `instance_id="${id}",label="trainer",gpu="${gpu}"`;
    const inst = `instance_id="${id}",label="trainer"`;
    expect(text).toBe([
      "# HELP gpu_rental_account_balance_micros The account's balance in micro-dollars, settled up to now",
      "# TYPE gpu_rental_account_balance_micros gauge",
      "gpu_rental_account_balance_micros 50000000",
      "# HELP gpu_rental_account_month_spend_micros Micro-dollars charged this UTC calendar month for instances and storage",
      "# TYPE gpu_rental_account_month_spend_micros gauge",
      "gpu_rental_account_month_spend_micros 0",
      "# HELP gpu_rental_instance_running Each running instance (always 1); its GPU and container series are left out while its host has no current sample",
      "# TYPE gpu_rental_instance_running gauge",
      `gpu_rental_instance_running{${inst},gpu_model="rtx4090"} 1`,
      "# HELP gpu_rental_gpu_utilization_ratio Fraction of the last sample period a kernel ran on the GPU (0 to 1)",
      "# TYPE gpu_rental_gpu_utilization_ratio gauge",
      `gpu_rental_gpu_utilization_ratio{${at(g0!)}} 0.97`,
      `gpu_rental_gpu_utilization_ratio{${at(g1!)}} 0.97`,
      "# HELP gpu_rental_gpu_memory_used_bytes GPU memory in use",
      "# TYPE gpu_rental_gpu_memory_used_bytes gauge",
      `gpu_rental_gpu_memory_used_bytes{${at(g0!)}} ${20_000 * MIB}`,
      `gpu_rental_gpu_memory_used_bytes{${at(g1!)}} ${20_000 * MIB}`,
      "# HELP gpu_rental_gpu_memory_total_bytes The GPU's memory",
      "# TYPE gpu_rental_gpu_memory_total_bytes gauge",
      `gpu_rental_gpu_memory_total_bytes{${at(g0!)}} ${24_564 * MIB}`,
      `gpu_rental_gpu_memory_total_bytes{${at(g1!)}} ${24_564 * MIB}`,
      "# HELP gpu_rental_gpu_power_watts Board power draw",
      "# TYPE gpu_rental_gpu_power_watts gauge",
      `gpu_rental_gpu_power_watts{${at(g0!)}} 300.5`,
      `gpu_rental_gpu_power_watts{${at(g1!)}} 300.5`,
      "# HELP gpu_rental_gpu_temperature_celsius GPU temperature",
      "# TYPE gpu_rental_gpu_temperature_celsius gauge",
      `gpu_rental_gpu_temperature_celsius{${at(g0!)}} 66`,
      `gpu_rental_gpu_temperature_celsius{${at(g1!)}} 66`,
      "# HELP gpu_rental_container_cpu_seconds_total CPU time the container used since it started",
      "# TYPE gpu_rental_container_cpu_seconds_total counter",
      `gpu_rental_container_cpu_seconds_total{${inst}} 12.5`,
      "# HELP gpu_rental_container_memory_bytes Memory the container uses, less the page cache it could drop at once",
      "# TYPE gpu_rental_container_memory_bytes gauge",
      `gpu_rental_container_memory_bytes{${inst}} ${2048.5 * MIB}`,
      "",
    ].join("\n"));
  });

  it("escapes a label's backslash, double quote and line feed as the format says", async () => {
    const { key } = await newAccount();
    const label = 'say "hi"\\ then\nbye';
    const id = await runningOn(agent, key, { label });
    const text = await sampled(agent, key, id, [sample(id, await gpusOf(agent, id), 50)]);
    expect(text).toContain(`gpu_rental_container_memory_bytes{instance_id="${id}",label="say \\"hi\\"\\\\ then\\nbye"} ${2048.5 * MIB}\n`);
    // Every sample line is one line: the label's line feed did not break one.
    expect(instanceLines(text, id)).toHaveLength(8);
  });

  it("shows only the caller's running instances: a stopped one and another account's are absent, though the same host sampled them", async () => {
    const { key } = await newAccount();
    const stranger = await newAccount();
    const [kept, stopped, theirs] = [await runningOn(agent, key), await runningOn(agent, key), await runningOn(agent, stranger.key)];
    const [keptGpus, stoppedGpus, theirGpus] = [await gpusOf(agent, kept), await gpusOf(agent, stopped), await gpusOf(agent, theirs)];
    expect((await call("POST", `/v1/instances/${stopped}/stop`, { key })).status).toBe(204);

    const text = await sampled(agent, key, kept, [sample(kept, keptGpus, 10), sample(stopped, stoppedGpus, 20), sample(theirs, theirGpus, 30)]);
    expect(instanceLines(text, kept).length).toBeGreaterThan(0);
    expect(text).not.toContain(stopped);
    expect(text).not.toContain(theirs);
    const theirText = (await exported(stranger.key)).text;
    expect(theirText).toContain(`gpu_rental_gpu_utilization_ratio{instance_id="${theirs}",label="",gpu="${theirGpus[0]}"} 0.3\n`);
    expect(theirText).not.toContain(kept);
  });

  it("asks each machine for its own instances, and shows an instance without a current sample as running with no figures", async () => {
    const { key } = await newAccount();
    const here = await runningOn(agent, key);
    const there = await runningOn(other, key, { gpu_model: "h100-80gb" });
    await sampled(agent, key, here, [sample(here, await gpusOf(agent, here), 40)]);
    const text = await sampled(other, key, there, [sample(there, await gpusOf(other, there), 60, null)]);
    expect(instanceLines(text, here)).toHaveLength(8);
    // Its agent gave no CPU seconds: that one series is left out, not written as 0.
    expect(instanceLines(text, there).filter((line) => line.startsWith("gpu_rental_container_cpu_seconds_total"))).toEqual([]);
    expect(instanceLines(text, there)).toHaveLength(7);

    advanceClock(CURRENT_SAMPLE_MS + 10_000);
    const stale = (await exported(key)).text;
    expect(instanceLines(stale, here)).toEqual([`gpu_rental_instance_running{instance_id="${here}",label="",gpu_model="rtx4090"} 1`]);
    expect(instanceLines(stale, there)).toEqual([`gpu_rental_instance_running{instance_id="${there}",label="",gpu_model="h100-80gb"} 1`]);
  });

  it("shows the balance settled up to now and this UTC month's spend, which starts again at the month's first hour", async () => {
    const { key } = await newAccount(50_000_000);
    advanceClock(Date.UTC(2027, 0, 31, 23, 0, 0) - clock.now());
    await runningOn(agent, key);
    const money = async () => {
      const lines = (await exported(key)).text.split("\n");
      const value = (name: string) => Number(lines.find((line) => line.startsWith(`${name} `))!.split(" ")[1]);
      return { balance: value("gpu_rental_account_balance_micros"), spend: value("gpu_rental_account_month_spend_micros") };
    };
    expect(await money()).toEqual({ balance: 50_000_000, spend: 0 });
    advanceClock(HOUR_MS / 2);
    expect(await money()).toEqual({ balance: 50_000_000 - PRICE / 2, spend: PRICE / 2 });
    advanceClock(HOUR_MS);
    expect(await money()).toEqual({ balance: 50_000_000 - (PRICE * 3) / 2, spend: PRICE / 2 });
  });

  it("may be read by every role and by a key holding instances:read; 403 naming the scope for a key without it, 401 without a credential", async () => {
    const { id, owner } = await ownedAccount();
    const viewer = await joined(id, owner.key, "viewer");
    const running = await runningOn(agent, owner.key);
    expect((await exported(viewer.key)).text).toContain(`gpu_rental_instance_running{instance_id="${running}"`);

    const keyWith = async (body: Record<string, unknown>) => {
      const made = await callJson<{ key: string }>("POST", "/v1/keys", { key: owner.key, body: { name: "scraper", ...body } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      return made.body.key;
    };
    const reader = await keyWith({ scopes: ["instances:read"] });
    expect(await exported(reader)).toMatchObject({ status: 200, text: expect.stringContaining(running) });
    expect(await callJson("GET", "/v1/metrics", { key: await keyWith({ scopes: ["billing:write", "account:write", "volumes:write"] }) })).toMatchObject({
      status: 403, body: { error: "forbidden", message: "this API key's scopes do not allow this: it needs the scope instances:read" },
    });
    expect(await callJson("GET", "/v1/metrics")).toMatchObject({ status: 401, body: { error: "unauthorized" } });
  });

  it("shows a key kept to some instances those alone", async () => {
    const { key } = await newAccount();
    const [mine, notMine] = [await runningOn(agent, key), await runningOn(agent, key)];
    const made = await callJson<{ key: string }>("POST", "/v1/keys", { key, body: { scopes: ["instances:read"], instance_ids: [mine] } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const text = (await exported(made.body.key)).text;
    expect(text).toContain(`gpu_rental_instance_running{instance_id="${mine}"`);
    expect(text).not.toContain(notMine);
  });
});
