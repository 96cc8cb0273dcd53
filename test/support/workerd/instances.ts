// Instances launched through the API onto a fake host, for workerd tests: launched (the host has its
// create command) or brought to running (the host reported it, and the API shows it).
import { expect } from "vitest";
import { callJson } from "./api-client.ts";
import type { FakeAgent } from "./fake-agent.ts";
import { until } from "./poll.ts";

/** What a test launches unless it says otherwise. */
const DEFAULT_LAUNCH = { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" };

/** Launches with `key` (`body` over the defaults) and waits until `agent` has the create command; the instance's id. */
export async function launchOn(agent: FakeAgent, key: string, body: Record<string, unknown> = {}): Promise<string> {
  const launched = await callJson<{ id: string }>("POST", "/v1/instances", { key, body: { ...DEFAULT_LAUNCH, ...body } });
  expect(launched.status, JSON.stringify(launched.body)).toBe(201);
  await agent.waitForCommand(launched.body.id, "create");
  return launched.body.id;
}

/** Launches as `launchOn` does, has the agent report the container running, and waits until the API shows it running. */
export async function runningOn(agent: FakeAgent, key: string, body: Record<string, unknown> = {}): Promise<string> {
  const id = await launchOn(agent, key, body);
  agent.report(id, "running");
  await until(() => callJson<{ status: string }>("GET", `/v1/instances/${id}`, { key }), (r) => r.body.status === "running", "running");
  return id;
}
