// What a compromised agent can send its MachineDO: texts and lists are cut, and a flood of event
// messages closes its connection (4008) and takes its machine offline until it says hello again.
import { describe, expect, it } from "vitest";
import { callJson, machineOnline, newAccount } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../test/support/workerd/instances.ts";
import { until } from "../../test/support/workerd/poll.ts";
import type { AgentMessage } from "../../protocol/index.ts";
import { AgentEventRate, capAgentMessage, EVENT_WINDOW_MS, MAX_EVENTS, MAX_LIST_ITEMS, MAX_TEXT_CHARS } from "./agent-message-limits.ts";

describe("an agent's messages", () => {
  it("are cut to their caps: texts end in … at 1,000 characters, lists at 1,000 items", () => {
    const long = "x".repeat(100_000);
    expect(capAgentMessage({ type: "container", instance_id: "i-aaaaaaaaaaaaaaaa", state: "error", message: long })).toMatchObject({ message: `${"x".repeat(MAX_TEXT_CHARS - 1)}…` });
    expect(capAgentMessage({ type: "container", instance_id: "i-aaaaaaaaaaaaaaaa", state: "error", message: "short" })).toMatchObject({ message: "short" });
    const models = Array.from({ length: 5_000 }, (_, i) => `org/model-${i}`);
    expect((capAgentMessage({ type: "cache", models }) as { models: string[] }).models).toHaveLength(MAX_LIST_ITEMS);
    expect(capAgentMessage({ type: "health", degraded: long })).toEqual({ type: "health", degraded: `${"x".repeat(MAX_TEXT_CHARS - 1)}…` });
  });

  it("count per connection in windows: heartbeats, hellos and stream frames are not events", () => {
    const rate = new AgentEventRate();
    const cache: AgentMessage = { type: "cache", models: [] };
    for (let i = 0; i < MAX_EVENTS; i++) expect(rate.admit("c1", cache, 1_000)).toBe(true);
    expect(rate.admit("c1", { type: "heartbeat" }, 1_000)).toBe(true);
    expect(rate.admit("c1", { type: "window", stream: 1, bytes: 10 }, 1_000)).toBe(true);
    expect(rate.admit("c1", cache, 1_000 + EVENT_WINDOW_MS - 1)).toBe(false);
    expect(rate.admit("c1", cache, 1_000 + EVENT_WINDOW_MS)).toBe(true);
    expect(rate.admit("c2", cache, 1_000 + EVENT_WINDOW_MS)).toBe(true);
  });

  it("a container message of 100,000 characters becomes a status message of 1,000", async () => {
    const account = await newAccount();
    const agent = await FakeAgent.online("long-messages", ["rtx4090"]);
    const id = await runningOn(agent, account.key);
    agent.report(id, "error", "x".repeat(100_000));
    const instance = await until(() => callJson<{ status: string; status_message: string }>("GET", `/v1/instances/${id}`, { key: account.key }), (r) => r.body.status === "error", "error", 500);
    expect(instance.body.status_message).toHaveLength(MAX_TEXT_CHARS);
    expect(instance.body.status_message.endsWith("x…")).toBe(true);
    await agent.leave();
  });

  it("one event message over the window's budget closes the connection (4008) and takes the machine offline; a new hello brings it back", async () => {
    const agent = await FakeAgent.online("flooding", ["rtx4090"]);
    // Acks of commands never sent: the cheapest event for the object to take.
    for (let i = 0; i <= MAX_EVENTS; i++) agent.send({ type: "ack", command_id: `flood-${i}`, ok: true, error: "" });
    await until(async () => agent.closedWith, (code) => code === 4008, "the connection closed with 4008");
    await until(() => machineOnline(agent.machineId), (online) => !online, "the machine offline");
    await agent.connect(["rtx4090"]);
    expect(await machineOnline(agent.machineId)).toBe(true);
    await agent.leave();
  });
});
