// Budgets on a frozen clock: the month's spend on /v1/me, the thresholds' webhooks once each a month
// (also across a month's end and under concurrent charges), 402 budget_exceeded on launches and starts,
// and the settlement stopping exactly what a reached budget covers: all of the account's running
// instances for its budget with `stop`, only a key's for its monthly limit, none with `notify`.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, callJson, GPU_MODELS, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { launchOn, runningOn } from "../../../test/support/workerd/instances.ts";
import { expectLedgerBalanced } from "../../../test/support/workerd/ledger-audit.ts";
import { advanceClock, freezeClockInEachTest } from "../../../test/support/workerd/test-clock.ts";
import { clock } from "../../../core/clock.ts";
import { monthOf } from "./month-spend.ts";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const PRICE = GPU_MODELS.rtx4090.price_hour_micros;
// Nothing listens on port 9 of the loopback host: the events are kept with their (failing) deliveries.
const LOOPBACK = "http://127.0.0.1:8787";
const CLOSED = "http://127.0.0.1:9/hook";

let agent: FakeAgent;
beforeAll(async () => {
  agent = await FakeAgent.online("budget-host", Array(8).fill("rtx4090"));
});
freezeClockInEachTest();

interface Me {
  account: { monthly_budget_micros: number | null; budget_action: string };
  month_spend_micros: number;
  balance_micros: number;
}

const me = async (key: string) => (await callJson<Me>("GET", "/v1/me", { key })).body;
const ring = (accountId: string) => runDurableObjectAlarm(env.ACCOUNTS.getByName(accountId));
const moveTo = (atMs: number) => advanceClock(atMs - clock.now());
const setBudget = (key: string, body: Record<string, unknown>) => callJson<Me>("PATCH", "/v1/account", { key, body });
const status = async (key: string, id: string) =>
  (await callJson<{ status: string; status_message: string }>("GET", `/v1/instances/${id}`, { key })).body;
const launch = (key: string) => callJson<{ id: string }>("POST", "/v1/instances", { key, body: { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" } });

/** Subscribes the account to the budget's events, which are then kept (an event no endpoint takes is not). */
const hooked = (key: string) =>
  callJson("POST", "/v1/webhooks", { key, body: { url: CLOSED, events: ["budget.threshold", "instance.stopped_for_budget"] }, base: LOOPBACK });

const events = (accountId: string, type: string) =>
  runInDurableObject(env.ACCOUNTS.getByName(accountId), (_, state) =>
    state.storage.sql.exec<{ data: string }>("SELECT data FROM webhook_events WHERE type = ? ORDER BY created_at, rowid", type).toArray()
      .map((row) => JSON.parse(row.data) as Record<string, unknown>));

/** An account with a webhook endpoint for the budget's events, on a clock at least `lead` before a month's end. */
async function budgetAccount(lead: number, balance = 100_000_000): Promise<{ id: string; key: string; monthEnd: number }> {
  const account = await newAccount(balance);
  expect((await hooked(account.key)).status).toBe(201);
  let monthEnd = monthOf(clock.now()).endMs;
  if (monthEnd - clock.now() < lead) monthEnd = monthOf(monthEnd).endMs;
  moveTo(monthEnd - lead);
  return { ...account, monthEnd };
}

describe("the budget's settings", () => {
  it("PATCH /v1/account sets the budget and its action, /v1/me shows them with the month's spend; null removes it", async () => {
    const account = await newAccount();
    expect(await me(account.key)).toMatchObject({ account: { monthly_budget_micros: null, budget_action: "notify" }, month_spend_micros: 0 });
    const set = await setBudget(account.key, { monthly_budget_micros: 25_000_000, budget_action: "stop" });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ account: { monthly_budget_micros: 25_000_000, budget_action: "stop" }, month_spend_micros: 0 });
    expect((await setBudget(account.key, { monthly_budget_micros: null })).body.account).toMatchObject({ monthly_budget_micros: null, budget_action: "stop" });
  });

  it("a bad budget or action is 400 naming the field and the rule, and changes nothing", async () => {
    const account = await newAccount();
    await setBudget(account.key, { monthly_budget_micros: 1_000_000, budget_action: "notify" });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ monthly_budget_micros: -1 }, /monthly_budget_micros.*0 to 1e15/],
      [{ monthly_budget_micros: 1.5 }, /monthly_budget_micros.*integer/],
      [{ monthly_budget_micros: "10" }, /monthly_budget_micros/],
      [{ monthly_budget_micros: 2e15 }, /monthly_budget_micros/],
      [{ budget_action: "pause" }, /budget_action.*stop or notify/],
      [{ monthly_budget_micros: 5, budget_action: null }, /budget_action/],
      [{}, /must set name, low_balance_micros, monthly_budget_micros or budget_action/],
    ];
    for (const [body, message] of cases) {
      const refused = await callJson<{ error: string; message: string }>("PATCH", "/v1/account", { key: account.key, body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error).toBe("invalid");
      expect(refused.body.message).toMatch(message);
    }
    expect((await me(account.key)).account).toMatchObject({ monthly_budget_micros: 1_000_000, budget_action: "notify" });
  });
});

describe("the month's spend and the thresholds", () => {
  it("thresholds 50, 80 and 100 % once each a month; at 100 % launches are refused (notify keeps what runs); across the month's end the spend resets and they come again", async () => {
    const account = await budgetAccount(HOUR);
    const budget = 600_000;
    await setBudget(account.key, { monthly_budget_micros: budget, budget_action: "notify" });
    const id = await runningOn(agent, account.key);
    const percents = async () => (await events(account.id, "budget.threshold")).map((e) => e.percent);

    advanceClock(30 * MINUTE);
    expect((await me(account.key)).month_spend_micros, "a read shows what accrued").toBe(PRICE / 2);
    await ring(account.id);
    expect(await events(account.id, "budget.threshold")).toEqual([{ percent: 50, spent_micros: PRICE / 2, budget_micros: budget }]);

    advanceClock(15 * MINUTE);
    await ring(account.id);
    await ring(account.id);
    expect(await percents()).toEqual([50, 80]);

    advanceClock(10 * MINUTE);
    expect((await me(account.key)).month_spend_micros).toBe((PRICE * 55) / 60);
    const refused = await launch(account.key);
    expect(refused.status).toBe(402);
    expect(refused.body).toMatchObject({ error: "budget_exceeded" });
    expect((refused.body as unknown as { message: string }).message).toContain(`monthly_budget_micros ${budget} is reached`);
    await ring(account.id);
    expect(await percents()).toEqual([50, 80, 100]);
    expect((await status(account.key, id)).status, "notify only notifies").toBe("running");
    expect(await events(account.id, "instance.stopped_for_budget")).toEqual([]);

    // The last hour's charge belongs to the month it ran in; the new month starts from nothing.
    moveTo(account.monthEnd + 30 * MINUTE);
    expect((await me(account.key)).month_spend_micros).toBe(PRICE / 2);
    await ring(account.id);
    expect(await percents()).toEqual([50, 80, 100, 50]);
    const again = await launch(account.key);
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    await agent.waitForCommand(again.body.id, "create");
    for (const instance of [id, again.body.id]) await call("DELETE", `/v1/instances/${instance}`, { key: account.key });
    await expectLedgerBalanced(account.id);
  });

  it("a read across the month's end counts only this month's part of what accrued since the last settlement, and the settlement lands on it", async () => {
    const account = await budgetAccount(10 * MINUTE);
    const id = await runningOn(agent, account.key);
    moveTo(account.monthEnd + 20 * MINUTE);
    expect((await me(account.key)).month_spend_micros).toBe(PRICE / 3);
    await ring(account.id);
    expect((await me(account.key)).month_spend_micros).toBe(PRICE / 3);
    await call("DELETE", `/v1/instances/${id}`, { key: account.key });
  });

  it("concurrent charges crossing a threshold send it once", async () => {
    const account = await budgetAccount(HOUR);
    const ids = await Promise.all([runningOn(agent, account.key), runningOn(agent, account.key), runningOn(agent, account.key)]);
    // Three instances for 20 minutes: one hour's price, past every threshold of this budget.
    await setBudget(account.key, { monthly_budget_micros: PRICE / 2, budget_action: "notify" });
    advanceClock(20 * MINUTE);
    await Promise.all([
      ...ids.map((id) => call("POST", `/v1/instances/${id}/stop`, { key: account.key })),
      ring(account.id), ring(account.id), me(account.key),
    ]);
    const sent = await events(account.id, "budget.threshold");
    expect(sent.map((e) => e.percent)).toEqual([50, 80, 100]);
    await Promise.all(ids.map((id) => call("DELETE", `/v1/instances/${id}`, { key: account.key })));
    await expectLedgerBalanced(account.id);
  });

  it("a budget set below what the month has spent crosses its thresholds at once", async () => {
    const account = await budgetAccount(HOUR);
    const id = await runningOn(agent, account.key);
    advanceClock(30 * MINUTE);
    await call("POST", `/v1/instances/${id}/stop`, { key: account.key });
    await setBudget(account.key, { monthly_budget_micros: PRICE / 2 });
    expect((await events(account.id, "budget.threshold")).map((e) => e.percent)).toEqual([50, 80, 100]);
    const start = await callJson("POST", `/v1/instances/${id}/start`, { key: account.key });
    expect(start.status).toBe(402);
    expect(start.body.error).toBe("budget_exceeded");
    await call("DELETE", `/v1/instances/${id}`, { key: account.key });
  });
});

describe("stops", () => {
  it("the account's budget with stop stops every running instance of the account, volumes kept, and no other account's", async () => {
    const account = await budgetAccount(HOUR);
    const other = await newAccount();
    const volume = await callJson<{ id: string }>("POST", "/v1/volumes", { key: account.key, body: { name: "kept", size_gb: 1 } });
    const withVolume = await runningOn(agent, account.key, { volumes: [{ volume_id: volume.body.id, path: "/workspace" }] });
    const plain = await runningOn(agent, account.key);
    const stoppedBefore = await runningOn(agent, account.key);
    await call("POST", `/v1/instances/${stoppedBefore}/stop`, { key: account.key });
    const elsewhere = await runningOn(agent, other.key);
    await setBudget(account.key, { monthly_budget_micros: PRICE / 2, budget_action: "stop" });

    advanceClock(10 * MINUTE);
    await ring(account.id);
    expect((await status(account.key, plain)).status, "below the budget nothing stops").toBe("running");
    advanceClock(6 * MINUTE);
    await ring(account.id);
    for (const id of [withVolume, plain]) {
      expect(await status(account.key, id)).toMatchObject({ status: "stopped", status_message: "stopped: the account's monthly budget is reached" });
      await agent.waitForCommand(id, "stop");
    }
    expect((await events(account.id, "instance.stopped_for_budget")).map((e) => e.instance_id).sort()).toEqual([withVolume, plain].sort());
    expect((await events(account.id, "instance.stopped_for_budget"))[0]).toMatchObject({ budget: "account", key_id: null });
    expect((await status(other.key, elsewhere)).status).toBe("running");
    expect((await callJson("GET", `/v1/volumes/${volume.body.id}`, { key: account.key })).status).toBe(200);

    const start = await callJson("POST", `/v1/instances/${plain}/start`, { key: account.key });
    expect([start.status, start.body.error]).toEqual([402, "budget_exceeded"]);
    for (const id of [withVolume, plain, stoppedBefore]) await call("DELETE", `/v1/instances/${id}`, { key: account.key });
    await call("DELETE", `/v1/instances/${elsewhere}`, { key: other.key });
    await expectLedgerBalanced(account.id);
  });

  it("a key's monthly limit stops only the instances that key launched, and refuses its launches and anyone's start of them", async () => {
    const account = await budgetAccount(HOUR);
    const makeKey = async (body: Record<string, unknown>) =>
      (await callJson<{ id: string; key: string }>("POST", "/v1/keys", { key: account.key, body })).body;
    const limited = await makeKey({ name: "limited", monthly_limit_micros: PRICE / 4 });
    const free = await makeKey({ name: "free" });
    const byLimited = await runningOn(agent, limited.key);
    const byFree = await runningOn(agent, free.key);
    const byAccount = await runningOn(agent, account.key);

    advanceClock(16 * MINUTE);
    await ring(account.id);
    expect(await status(account.key, byLimited)).toMatchObject({ status: "stopped", status_message: `stopped: its API key's monthly limit is reached (${limited.id})` });
    expect((await status(account.key, byFree)).status).toBe("running");
    expect((await status(account.key, byAccount)).status).toBe("running");
    expect(await events(account.id, "instance.stopped_for_budget")).toEqual([{ instance_id: byLimited, budget: "key", key_id: limited.id }]);

    const refusedLaunch = await launch(limited.key);
    expect([refusedLaunch.status, refusedLaunch.body]).toMatchObject([402, { error: "budget_exceeded" }]);
    expect((refusedLaunch.body as unknown as { message: string }).message).toContain(`API key ${limited.id}'s monthly_limit_micros ${PRICE / 4}`);
    const startByOther = await callJson("POST", `/v1/instances/${byLimited}/start`, { key: free.key });
    expect([startByOther.status, startByOther.body.error]).toEqual([402, "budget_exceeded"]);
    const launchByOther = await launch(free.key);
    expect(launchByOther.status).toBe(201);
    await agent.waitForCommand(launchByOther.body.id, "create");
    // It holds the stopped instance's GPUs, which its start needs back.
    await call("DELETE", `/v1/instances/${launchByOther.body.id}`, { key: account.key });

    // A new month: the key's limit holds again from nothing.
    moveTo(account.monthEnd + MINUTE);
    const startAgain = await callJson("POST", `/v1/instances/${byLimited}/start`, { key: limited.key });
    expect(startAgain.status, JSON.stringify(startAgain.body)).toBe(204);
    for (const id of [byLimited, byFree, byAccount]) await call("DELETE", `/v1/instances/${id}`, { key: account.key });
    await expectLedgerBalanced(account.id);
  });

  it("the alarm comes when a budget that stops would be reached, not a minute later", async () => {
    const account = await newAccount();
    await runningOn(agent, account.key);
    // 1,000 micro-dollars last 5.2 s at this price.
    await setBudget(account.key, { monthly_budget_micros: (await me(account.key)).month_spend_micros + 1_000, budget_action: "stop" });
    const alarmAt = await runInDurableObject(env.ACCOUNTS.getByName(account.id), (_, state) => state.storage.getAlarm());
    expect(alarmAt! - Date.now()).toBeLessThanOrEqual(5_300);
  });
});
