// GET /v1/instances/{id}/metrics through the real Worker, AccountDO and MachineDO, the samples sent by
// an agent speaking the protocol: the answer's shape in each window, the window's rule, who may read,
// and the history going with the instance.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { clock } from "../../../core/clock.ts";
import type { InstanceUsage } from "../../../protocol/index.ts";
import { admin, call, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";
import { until } from "../../../test/support/workerd/poll.ts";
import { browser, signUp } from "../../../test/support/workerd/session-client.ts";
import { advanceClock, freezeClockInEachTest } from "../../../test/support/workerd/test-clock.ts";

freezeClockInEachTest();

/** 2026-11-23 12:00:00 UTC: on every interval's boundary. */
const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);
const at = (ms: number) => advanceClock(ms - clock.now());

let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("metrics-host", Array(8).fill("rtx4090"));
});

/** The GPU indices the machine reserved for `id` (its create command's spec). */
const gpusOf = async (id: string) => (await agent.waitForCommand(id, "create")).spec!.gpu_indices;

function sample(id: string, gpuIndices: number[], util: number): InstanceUsage {
  return {
    instance_id: id, cpu_percent: 150, memory_used_mib: 2048,
    gpus: gpuIndices.map((index) => ({ index, util_percent: util, memory_used_mib: 20_000, memory_total_mib: 24_564, power_w: 300.5, power_limit_w: 450, temperature_c: 66, sm_clock_mhz: 2520 })),
  };
}

type Metrics = { window: string; interval_s: number; gpus: { index: number; points: Record<string, unknown>[] }[]; container: Record<string, unknown>[] };

/** Sends `usage` as the host's sample at `ms`, and waits until the API shows it. */
async function sampled(key: string, id: string, usage: InstanceUsage[], ms: number): Promise<void> {
  at(ms);
  agent.send({ type: "metrics", instances: usage });
  const t = new Date(Math.floor(ms / 10_000) * 10_000).toISOString();
  await until(() => callJson<Metrics>("GET", `/v1/instances/${id}/metrics`, { key }), (r) => r.body.container.some((p) => p.t === t), "the sample in the API");
}

describe("GET /v1/instances/{id}/metrics", () => {
  it("answers each window with its interval: the instance's GPUs and container, oldest first, means and maxima", async () => {
    const { key } = await newAccount();
    const id = await runningOn(agent, key, { gpu_count: 2 });
    const gpus = await gpusOf(id);
    await sampled(key, id, [sample(id, gpus, 40)], T0);
    await sampled(key, id, [sample(id, gpus, 80)], T0 + 10_000);

    const hour = await callJson<Metrics>("GET", `/v1/instances/${id}/metrics`, { key });
    expect(hour.status).toBe(200);
    const point = (t: number, util: number) => ({
      t: new Date(t).toISOString(), util_percent: util, util_percent_max: util, memory_used_mib: 20_000, memory_used_mib_max: 20_000,
      memory_total_mib: 24_564, power_w: 300.5, power_w_max: 300.5, temperature_c: 66, temperature_c_max: 66,
    });
    const container = (t: number) => ({ t: new Date(t).toISOString(), cpu_percent: 150, cpu_percent_max: 150, memory_used_mib: 2048, memory_used_mib_max: 2048 });
    expect(hour.body).toEqual({
      window: "1h", interval_s: 10,
      gpus: gpus.map((index) => ({ index, points: [point(T0, 40), point(T0 + 10_000, 80)] })),
      container: [container(T0), container(T0 + 10_000)],
    });
    for (const [window, interval] of [["24h", 60], ["7d", 600]] as const) {
      const { body } = await callJson<Metrics>("GET", `/v1/instances/${id}/metrics?window=${window}`, { key });
      expect(body).toEqual({
        window, interval_s: interval,
        gpus: gpus.map((index) => ({ index, points: [{ ...point(T0, 60), util_percent_max: 80 }] })),
        container: [container(T0)],
      });
    }
  });

  it("refuses any other window with 400 invalid naming window", async () => {
    const { key } = await newAccount();
    const id = await runningOn(agent, key);
    for (const window of ["1H", "30m", "", "7d,1h", "24"]) {
      expect(await callJson("GET", `/v1/instances/${id}/metrics?window=${encodeURIComponent(window)}`, { key }), `window=${window}`).toMatchObject({
        status: 400, body: { error: "invalid", message: "window: must be one of 1h, 24h, 7d" },
      });
    }
  });

  it("takes a session as well as a key; 401 without either, 404 for another account's instance or an unknown one", async () => {
    const owner = await signUp();
    await admin("POST", `/accounts/${owner.id}/credits`, { amount_micros: 10_000_000 });
    const key = (await admin("POST", `/accounts/${owner.id}/keys`, { name: "launcher" })).body.key as string;
    const id = await runningOn(agent, key);
    await sampled(key, id, [sample(id, await gpusOf(id), 5)], T0);
    const bySession = await callJson<Metrics>("GET", `/v1/instances/${id}/metrics`, { headers: browser(owner.session, null) });
    expect(bySession).toMatchObject({ status: 200, body: { window: "1h", container: [expect.objectContaining({ cpu_percent: 150 })] } });

    expect(await callJson("GET", `/v1/instances/${id}/metrics`)).toMatchObject({ status: 401, body: { error: "unauthorized" } });
    const stranger = await newAccount();
    expect(await callJson("GET", `/v1/instances/${id}/metrics`, { key: stranger.key })).toMatchObject({
      status: 404, body: { error: "not_found", message: `no instance ${id} in this account` },
    });
    expect(await callJson("GET", "/v1/instances/i-aaaaaaaaaaaaaaaa/metrics", { key })).toMatchObject({ status: 404, body: { error: "not_found" } });
  });

  it("keeps one instance's figures to itself, and removes them from the machine when it is destroyed", async () => {
    const { key } = await newAccount();
    const [kept, doomed] = [await runningOn(agent, key), await runningOn(agent, key)];
    const [keptGpus, doomedGpus] = [await gpusOf(kept), await gpusOf(doomed)];
    await sampled(key, doomed, [sample(kept, keptGpus, 10), sample(doomed, doomedGpus, 90)], T0);
    const doomedView = await callJson<Metrics>("GET", `/v1/instances/${doomed}/metrics`, { key });
    expect(doomedView.body.gpus.map((g) => g.index)).toEqual(doomedGpus);
    expect(doomedView.body.gpus[0]!.points[0]).toMatchObject({ util_percent: 90 });

    expect((await call("DELETE", `/v1/instances/${doomed}`, { key })).status).toBe(204);
    expect(await callJson("GET", `/v1/instances/${doomed}/metrics`, { key })).toMatchObject({ status: 200, body: { gpus: [], container: [] } });
    const stored = await runInDurableObject(env.MACHINES.getByName(String(agent.machineId)), (_, state) =>
      state.storage.sql.exec("SELECT body FROM metrics").toArray().map((row) => String(row.body)));
    expect(stored.some((body) => body.includes(doomed))).toBe(false);
    expect(stored.some((body) => body.includes(kept))).toBe(true);
  });
});
