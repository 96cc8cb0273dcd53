// Revocation, stop and destroy take effect on the very next proxied request: the AccountDO answers
// them only once the MachineDO that admits the proxy has acknowledged them. Requests run in loops
// while the change is made; each records whether it started after the change's answer.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { admin, call, callJson, newAccount } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { machinesUnreachable } from "../../test/support/workerd/unreachable-machines.ts";
import { until } from "../../test/support/workerd/poll.ts";
import { proxyGet, runningInstance } from "../../test/support/workerd/proxy-host.ts";
import { advanceClock } from "../../test/support/workerd/test-clock.ts";

let agent: FakeAgent;

beforeAll(async () => {
  // One GPU per instance, never given back: enough for every test of the file.
  agent = await FakeAgent.online("revocation-host", Array(16).fill("h100-80gb"));
  agent.serveHttp();
});

interface Outcome {
  afterChange: boolean;
  status: number;
  error?: string;
}

/**
 * Runs `loops` request loops against the instance with `credential` until `change` has been answered
 * and every loop has sent 10 more requests; returns each request's outcome and the change's answer.
 */
async function duringChange(instanceId: string, credential: string, change: () => Promise<Response>, loops = 4): Promise<{ outcomes: Outcome[]; answer: Response }> {
  const outcomes: Outcome[] = [];
  let changed = false;
  const loop = async () => {
    let afterwards = 0;
    while (afterwards < 10) {
      const afterChange = changed;
      const response = await proxyGet(instanceId, credential);
      const text = await response.text();
      outcomes.push({ afterChange, status: response.status, ...(response.status === 200 ? {} : { error: (JSON.parse(text) as { error: string }).error }) });
      if (afterChange) afterwards++;
    }
  };
  const running = Array.from({ length: loops }, loop);
  await until(async () => outcomes.filter((o) => o.status === 200).length, (served) => served >= 8, "requests served before the change");
  const answer = await change();
  changed = true;
  await Promise.all(running);
  return { outcomes, answer };
}

describe("changes take effect on the very next proxied request", () => {
  it("a key revoked while requests stream: every request started after the 204 is 401, none of them served", async () => {
    const account = await newAccount();
    const instance = await runningInstance(agent, account.key);
    const doomed = await admin("POST", `/accounts/${account.id}/keys`, { name: "doomed" });
    const { outcomes, answer } = await duringChange(instance.id, doomed.body.key as string,
      () => call("DELETE", `/v1/keys/${doomed.body.id as string}`, { key: account.key }));
    expect(answer.status).toBe(204);
    const after = outcomes.filter((o) => o.afterChange);
    expect(after.length).toBe(40);
    expect(after.every((o) => o.status === 401 && o.error === "unauthorized"), JSON.stringify(after)).toBe(true);
    // The agent was handed exactly the requests answered 200, all started before the revocation's answer.
    const served = outcomes.filter((o) => o.status === 200);
    expect(served.every((o) => !o.afterChange)).toBe(true);
    expect(agent.httpRequests(instance.id).length).toBe(served.length);
    expect((await proxyGet(instance.id, account.key)).status).toBe(200);
  });

  it("an instance destroyed while requests stream: every request started after the 204 is refused", async () => {
    const { key } = await newAccount();
    const instance = await runningInstance(agent, key);
    const { outcomes, answer } = await duringChange(instance.id, key, () => call("DELETE", `/v1/instances/${instance.id}`, { key }));
    expect(answer.status).toBe(204);
    const after = outcomes.filter((o) => o.afterChange);
    expect(after.every((o) => o.status === 409 && o.error === "not_running"), JSON.stringify(after)).toBe(true);
    expect(agent.httpRequests(instance.id).length).toBe(outcomes.filter((o) => o.status === 200 && !o.afterChange).length);
  });

  it("an instance stopped while requests stream: every request started after the 204 is 409 not_running", async () => {
    const { key } = await newAccount();
    const instance = await runningInstance(agent, key);
    const { outcomes, answer } = await duringChange(instance.id, instance.token, () => call("POST", `/v1/instances/${instance.id}/stop`, { key }));
    expect(answer.status).toBe(204);
    const after = outcomes.filter((o) => o.afterChange);
    expect(after.every((o) => o.status === 409 && o.error === "not_running"), JSON.stringify(after)).toBe(true);
    expect(agent.httpRequests(instance.id).length).toBe(outcomes.filter((o) => o.status === 200 && !o.afterChange).length);
  });

  it("a balance used up stops the instance before the request that noticed it is answered", async () => {
    // Exactly one hour of an h100 instance.
    const { key } = await newAccount(2_990_000);
    const instance = await runningInstance(agent, key);
    // The loops use the instance's token, not the key: a key's use is reported to its account (at most
    // once a minute, on this moved clock), and that report would settle billing too, noticing the
    // used-up balance first and stopping the instance in the background, so /v1/me would not be the
    // request that noticed it.
    const { outcomes, answer } = await duringChange(instance.id, instance.token, () => {
      advanceClock(3_600_000);
      return call("GET", "/v1/me", { key });
    });
    expect(((await answer.json()) as { balance_micros: number }).balance_micros).toBeLessThanOrEqual(0);
    const after = outcomes.filter((o) => o.afterChange);
    expect(after.every((o) => o.status === 409 && o.error === "not_running"), JSON.stringify(after)).toBe(true);
  });
});


describe("a MachineDO that cannot be reached", () => {
  let reachable: (() => void) | null = null;
  afterEach(() => reachable?.());

  it("revoking a key is 500 internal saying it is being applied; a retry confirms it once the host has it", async () => {
    const account = await newAccount();
    const instance = await runningInstance(agent, account.key);
    const doomed = await admin("POST", `/accounts/${account.id}/keys`, { name: "doomed" });
    reachable = await machinesUnreachable(agent.machineId);
    const revoked = await callJson("DELETE", `/v1/keys/${doomed.body.id as string}`, { key: account.key });
    expect(revoked).toMatchObject({ status: 500, body: { error: "internal", message: expect.stringContaining("being applied, retry the request") } });
    // The revocation itself is made: the API refuses the key at once.
    expect((await callJson("GET", "/v1/me", { key: doomed.body.key as string })).status).toBe(401);
    expect((await callJson("DELETE", `/v1/keys/${doomed.body.id as string}`, { key: account.key })).status).toBe(500);
    reachable();
    expect((await call("DELETE", `/v1/keys/${doomed.body.id as string}`, { key: account.key })).status).toBe(204);
    expect((await proxyGet(instance.id, doomed.body.key as string)).status).toBe(401);
    expect((await callJson("DELETE", `/v1/keys/${doomed.body.id as string}`, { key: account.key })).body).toEqual({
      error: "not_found", message: `no live key ${doomed.body.id as string} in this account`,
    });
  });

  it("destroying is 500 internal saying it is being applied; the outbox delivers it on its own later", async () => {
    const account = await newAccount();
    const instance = await runningInstance(agent, account.key);
    reachable = await machinesUnreachable(agent.machineId);
    const destroyed = await callJson("DELETE", `/v1/instances/${instance.id}`, { key: account.key });
    expect(destroyed).toMatchObject({ status: 500, body: { error: "internal", message: expect.stringContaining("is destroyed, but its host has not confirmed it yet") } });
    expect((await callJson<{ status: string }>("GET", `/v1/instances/${instance.id}`, { key: account.key })).body.status).toBe("destroyed");
    reachable();
    const stub = env.ACCOUNTS.getByName(account.id);
    await until(async () => {
      advanceClock(60_000);
      await runDurableObjectAlarm(stub);
      return (await proxyGet(instance.id, account.key)).status;
    }, (status) => status === 409, "the outbox to deliver the destroy");
    await agent.waitForCommand(instance.id, "destroy");
    // Delivered: nothing is pending, so destroying again is the plain conflict.
    expect((await callJson("DELETE", `/v1/instances/${instance.id}`, { key: account.key })).body).toEqual({
      error: "conflict", message: "the instance is already destroyed",
    });
  });
});
