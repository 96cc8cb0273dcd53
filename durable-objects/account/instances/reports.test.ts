// Outbox delivery is at-least-once: applying the same report or desired-state change twice is harmless.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { launchOn, runningOn } from "../../../test/support/workerd/instances.ts";
import { expectLedgerBalanced } from "../../../test/support/workerd/ledger-audit.ts";
import { until } from "../../../test/support/workerd/poll.ts";

let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("dup-host", Array(4).fill("rtx4090"));
});

describe("duplicate delivery", () => {
  it("a report batch delivered twice is applied once", async () => {
    const account = await newAccount();
    const id = await launchOn(agent, account.key);
    const at = Date.now();
    const batch = [
      { seq: 1_000_001, kind: "event" as const, instance_id: id, message: "custom event", at },
      { seq: 1_000_002, kind: "state" as const, instance_id: id, state: "running" as const, message: "", at },
    ];
    const stub = env.ACCOUNTS.getByName(account.id);
    expect(await stub.applyMachineReports(agent.machineId, batch)).toEqual({ unknown: [] });
    expect(await stub.applyMachineReports(agent.machineId, batch)).toEqual({ unknown: [] });
    const { body } = await callJson<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`, { key: account.key });
    expect(body.items.filter((e) => e.message === "custom event").length).toBe(1);
    expect(body.items.filter((e) => e.message.includes("instance is running")).length).toBe(1);
    await expectLedgerBalanced(account.id);
  });

  it("a stop report arriving after the user started again is logged, at the time it happened", async () => {
    const account = await newAccount();
    const id = await runningOn(agent, account.key);
    await call("POST", `/v1/instances/${id}/stop`, { key: account.key });
    const stoppedAt = Date.now();
    expect((await call("POST", `/v1/instances/${id}/start`, { key: account.key })).status).toBe(204);
    await env.ACCOUNTS.getByName(account.id).applyMachineReports(agent.machineId, [
      { seq: 3_000_001, kind: "state", instance_id: id, state: "stopped", message: "", at: stoppedAt },
    ]);
    const { body } = await callJson<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`, { key: account.key });
    const messages = body.items.map((e) => e.message);
    expect(messages.indexOf("Container stopped; data kept")).toBeGreaterThan(messages.findIndex((m) => m.startsWith("Start requested")));
    expect((await callJson<{ status: string }>("GET", `/v1/instances/${id}`, { key: account.key })).body.status).toBe("starting");
  });

  it("a report about an instance the account does not have is answered as unknown", async () => {
    const account = await newAccount();
    const stub = env.ACCOUNTS.getByName(account.id);
    const result = await stub.applyMachineReports(agent.machineId, [
      { seq: 2_000_001, kind: "state", instance_id: "i-bbbbbbbbbbbbbbbb", state: "running", message: "", at: Date.now() },
    ]);
    expect(result).toEqual({ unknown: ["i-bbbbbbbbbbbbbbbb"] });
  });

  it("a desired-state change delivered twice, or out of date, changes nothing more", async () => {
    const account = await newAccount();
    const id = await runningOn(agent, account.key);
    await call("POST", `/v1/instances/${id}/stop`, { key: account.key });
    await agent.waitForCommand(id, "stop");
    agent.report(id, "stopped");
    await until(() => callJson<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`, { key: account.key }),
      (r) => r.body.items.some((e) => e.message.includes("Container stopped")), "the stop to be reported");
    const machine = env.MACHINES.getByName(String(agent.machineId));
    const stops = () => agent.commands(id).filter((c) => c.op === "stop").length;
    const before = stops();
    await machine.applyDirectives([{ instance_id: id, desired: "stopped", generation: 2 }]);
    await machine.applyDirectives([{ instance_id: id, desired: "destroyed", generation: 1 }]);
    expect((await callJson("POST", `/v1/instances/${id}/start`, { key: account.key })).status).toBe(204);
    await agent.waitForCommand(id, "start");
    await machine.applyDirectives([{ instance_id: id, desired: "stopped", generation: 2 }]);
    expect(stops()).toBe(before);
    expect(agent.commands(id).some((c) => c.op === "destroy")).toBe(false);
  });
});
