// Billing, end to end in workerd: a fake agent reports states, the AccountDO's clock is moved.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, callJson, GPU_MODELS, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";
import { expectLedgerBalanced } from "../../../test/support/workerd/ledger-audit.ts";
import { until } from "../../../test/support/workerd/poll.ts";
import { advanceClock, withFrozenClock } from "../../../test/support/workerd/test-clock.ts";
import type { AccountDO } from "../account-do.ts";

const HOUR = 3_600_000;
const PRICE = GPU_MODELS.rtx4090.price_hour_micros;
let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("billing-host", Array(8).fill("rtx4090"));
});

const accountStub = (id: string) => env.ACCOUNTS.getByName(id);
const advance = async (_id: string, ms: number) => advanceClock(ms);
const balance = async (key: string) => (await callJson("GET", "/v1/me", { key })).body.balance_micros as number;
const get = (key: string, id: string) => callJson<{ status: string; machine_online: boolean }>("GET", `/v1/instances/${id}`, { key });
const runningInstance = (key: string, gpuCount = 1) => runningOn(agent, key, { gpu_count: gpuCount });

describe("billing", () => {
  it("an hour of running charges exactly price_hour_micros x gpu_count", async () => {
    const account = await newAccount(50_000_000);
    const before = await balance(account.key);
    await withFrozenClock(async () => {
      const id = await runningInstance(account.key, 2);
      let elapsed = 0;
      for (let i = 0; i < 59; i++) {
        const step = 59_999 + (i % 3);
        await advance(account.id, step);
        elapsed += step;
        await runDurableObjectAlarm(accountStub(account.id));
      }
      await advance(account.id, HOUR - elapsed);
      expect(before - (await balance(account.key))).toBe(2 * PRICE);
      await call("DELETE", `/v1/instances/${id}`, { key: account.key });
    });
    await expectLedgerBalanced(account.id);
  });

  it("reads write nothing: /me shows the balance settled up to now, and the next settlement lands exactly on it", async () => {
    const account = await newAccount(50_000_000);
    const id = await runningInstance(account.key, 3);
    const stored = () => runInDurableObject(accountStub(account.id), (_: AccountDO, state) => ({
      ledger: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM ledger").one().n,
      balance: state.storage.sql.exec<{ b: number }>("SELECT balance_micros AS b FROM account").one().b,
      instance: state.storage.sql.exec<{ billed_until_ms: number; carry: number }>("SELECT billed_until_ms, carry FROM instances WHERE id = ?", id).one(),
    }));
    await withFrozenClock(async () => {
      await runDurableObjectAlarm(accountStub(account.id));
      const settled = await stored();
      // 37.5 s of 3 GPUs: not a whole number of micro-dollars, so the carry matters.
      await advance(account.id, 37_501);
      const shown = await balance(account.key);
      expect((await callJson("GET", "/v1/instances", { key: account.key })).status).toBe(200);
      expect(await stored()).toEqual(settled);
      expect(settled.balance - shown).toBe(Math.floor((3 * PRICE * 37_501 + settled.instance.carry) / HOUR));
      await runDurableObjectAlarm(accountStub(account.id));
      expect((await stored()).balance).toBe(shown);
      expect(await balance(account.key)).toBe(shown);
      await call("DELETE", `/v1/instances/${id}`, { key: account.key });
    });
    await expectLedgerBalanced(account.id);
  });

  it("a stopped instance is not charged", async () => {
    const account = await newAccount(10_000_000);
    const id = await runningInstance(account.key);
    await call("POST", `/v1/instances/${id}/stop`, { key: account.key });
    const after = await balance(account.key);
    await advance(account.id, 5 * HOUR);
    expect(await balance(account.key)).toBe(after);
    await call("DELETE", `/v1/instances/${id}`, { key: account.key });
  });

  it("a host offline for a period is not billed for it", async () => {
    const host = await FakeAgent.online("flaky-host", ["h100-80gb"]);
    const account = await newAccount(50_000_000);
    const id = await runningOn(host, account.key, { gpu_model: "h100-80gb" });
    const start = await balance(account.key);
    host.disconnect();
    await until(() => get(account.key, id), (r) => !r.body.machine_online, "machine_online false");
    const atOffline = await balance(account.key);
    expect(start - atOffline).toBeLessThan(GPU_MODELS["h100-80gb"].price_hour_micros / 3600);
    await advance(account.id, 10 * HOUR);
    expect(await balance(account.key)).toBe(atOffline);
    await host.connect(["h100-80gb"], [{ instance_id: id, state: "running", message: "" }]);
    await until(() => get(account.key, id), (r) => r.body.machine_online, "machine back");
    await advance(account.id, HOUR);
    const charged = atOffline - (await balance(account.key));
    expect(charged).toBeGreaterThanOrEqual(GPU_MODELS["h100-80gb"].price_hour_micros);
    expect(charged).toBeLessThan(GPU_MODELS["h100-80gb"].price_hour_micros * 1.01);
    const events = (await callJson<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`, { key: account.key })).body.items;
    expect(events.map((e) => e.message).join("\n")).toMatch(/went offline[\s\S]*back online|back online[\s\S]*went offline/);
    await call("DELETE", `/v1/instances/${id}`, { key: account.key });
    host.disconnect();
  });

  it("the balance reaching zero stops running instances, with an event saying why", async () => {
    const account = await newAccount(PRICE);
    const id = await runningInstance(account.key);
    await advance(account.id, HOUR + 1_000);
    await runDurableObjectAlarm(accountStub(account.id));
    const { body } = await callJson<{ status: string; desired_state: string }>("GET", `/v1/instances/${id}`, { key: account.key });
    expect(body).toMatchObject({ status: "stopped", desired_state: "stopped" });
    const events = (await callJson<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`, { key: account.key })).body.items;
    expect(events[0]!.message).toContain("balance");
    await agent.waitForCommand(id, "stop");
    expect(await balance(account.key)).toBeLessThanOrEqual(0);
    const restart = await callJson("POST", `/v1/instances/${id}/start`, { key: account.key });
    expect(restart.status).toBe(402);
    expect(restart.body.error).toBe("insufficient_funds");
    await expectLedgerBalanced(account.id);
  });

  it("the alarm is scheduled before the balance runs out", async () => {
    const account = await newAccount(PRICE);
    await runningInstance(account.key);
    await admin("POST", `/accounts/${account.id}/credits`, { amount_micros: -(PRICE - 1_000) });
    const alarmAt = await until(
      () => runInDurableObject(accountStub(account.id), (_: AccountDO, state) => state.storage.getAlarm()),
      (at) => at !== null && at - Date.now() < 10_000, "an alarm within the balance's last seconds");
    // 1,000 micro-dollars last 5.2 s at this price: the alarm must come by then, not in a minute.
    expect(alarmAt! - Date.now()).toBeLessThanOrEqual(5_300);
  });

  it("concurrent launches, stops and starts while the alarm settles keep the ledger equal to the balance", async () => {
    const account = await newAccount(200_000_000);
    const ids = await Promise.all([runningInstance(account.key), runningInstance(account.key), runningInstance(account.key)]);
    const work: Promise<unknown>[] = [];
    for (let round = 0; round < 5; round++) {
      work.push(advance(account.id, 37_000));
      work.push(runDurableObjectAlarm(accountStub(account.id)));
      work.push(call("POST", `/v1/instances/${ids[round % 3]}/stop`, { key: account.key }));
      work.push(call("POST", `/v1/instances/${ids[(round + 1) % 3]}/start`, { key: account.key }));
      work.push(callJson("POST", "/v1/instances", { key: account.key, body: { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" } }));
      work.push(call("GET", "/v1/me", { key: account.key }));
    }
    await Promise.all(work);
    await runDurableObjectAlarm(accountStub(account.id));
    await expectLedgerBalanced(account.id);
    const charges = await runInDurableObject(accountStub(account.id), (_: AccountDO, state) =>
      state.storage.sql.exec("SELECT instance_id, note, COUNT(*) AS n FROM ledger WHERE kind = 'charge' GROUP BY instance_id, note HAVING n > 1").toArray());
    expect(charges).toEqual([]);
    const { body } = await callJson<{ items: { id: string }[] }>("GET", "/v1/instances", { key: account.key });
    for (const instance of body.items) await call("DELETE", `/v1/instances/${instance.id}`, { key: account.key });
  });

  it("destroyed instances disappear after 7 days", async () => {
    const account = await newAccount();
    const { body } = await callJson<{ id: string }>("POST", "/v1/instances", {
      key: account.key, body: { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" },
    });
    await call("DELETE", `/v1/instances/${body.id}`, { key: account.key });
    await advance(account.id, 7 * 24 * HOUR - 60_000);
    await runDurableObjectAlarm(accountStub(account.id));
    expect((await get(account.key, body.id)).status).toBe(200);
    await advance(account.id, 120_000);
    expect((await get(account.key, body.id)).status).toBe(404);
    await runDurableObjectAlarm(accountStub(account.id));
    const rows = await runInDurableObject(accountStub(account.id), (_: AccountDO, state) =>
      state.storage.sql.exec("SELECT COUNT(*) AS n FROM events").one());
    expect(rows.n).toBe(0);
    expect((await callJson<{ items: unknown[] }>("GET", "/v1/instances", { key: account.key })).body.items).toEqual([]);
  });
});

describe("races", () => {
  it("two launches racing for the last GPUs: exactly one wins", async () => {
    await admin("PUT", "/gpu-models/race-gpu", { display_name: "Race", vram_gb: 48, price_hour_micros: 100, tier: "datacenter", arch: "x" });
    const host = await FakeAgent.register("race-host");
    await host.connect(["race-gpu", "race-gpu"]);
    const [a, b] = await Promise.all([newAccount(), newAccount()]);
    await until(() => callJson<{ gpus: { model: string; free_gpus: number }[] }>("GET", "/v1/gpus", { key: a.key }),
      (r) => r.body.gpus.some((g) => g.model === "race-gpu" && g.free_gpus === 2), "race GPUs");
    const body = { gpu_model: "race-gpu", gpu_count: 2, template: "pytorch" };
    const results = await Promise.all([a, b].map((account) => callJson("POST", "/v1/instances", { key: account.key, body })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(results.find((r) => r.status === 409)!.body.error).toBe("no_capacity");
    host.disconnect();
  });

  it("concurrent launches on one account never exceed the machine's GPUs", async () => {
    await admin("PUT", "/gpu-models/pair-gpu", { display_name: "Pair", vram_gb: 48, price_hour_micros: 100, tier: "datacenter", arch: "x" });
    const host = await FakeAgent.register("pair-host");
    await host.connect(["pair-gpu", "pair-gpu", "pair-gpu"]);
    const account = await newAccount();
    await until(() => callJson<{ gpus: { model: string; free_gpus: number }[] }>("GET", "/v1/gpus", { key: account.key }),
      (r) => r.body.gpus.some((g) => g.model === "pair-gpu" && g.free_gpus === 3), "pair GPUs");
    const body = { gpu_model: "pair-gpu", gpu_count: 1, template: "pytorch" };
    const results = await Promise.all(Array.from({ length: 5 }, () => callJson("POST", "/v1/instances", { key: account.key, body })));
    expect(results.filter((r) => r.status === 201).length).toBe(3);
    expect(results.filter((r) => r.status === 409).length).toBe(2);
    host.disconnect();
  });
});
