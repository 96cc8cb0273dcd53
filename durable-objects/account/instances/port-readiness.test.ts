// Port readiness in instance objects, from what the agent's probes report through the MachineDO:
// ready and since when, one event per port and run, and the resets: a stop and start (a new run),
// a port failing again, the host going offline and coming back, a late report after a stop.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, callJson, newAccount, seedGpuModels } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { until } from "../../../test/support/workerd/poll.ts";

type Port = { port: number; api: string; ready: boolean; ready_at: string | null };
type Instance = { id: string; status: string; started_at: string | null; machine_online: boolean; ports: Port[] };

let agent: FakeAgent;

beforeAll(async () => {
  await seedGpuModels();
  agent = await FakeAgent.register("readiness-host");
  await agent.connect(Array(8).fill("rtx4090"));
});

const get = async (key: string, id: string) => (await callJson<Instance>("GET", `/v1/instances/${id}`, { key })).body;
const readyEvents = async (key: string, id: string) =>
  (await callJson<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`, { key })).body.items.map((e) => e.message).filter((m) => m.includes(" ready after "));
const untilInstance = (key: string, id: string, accept: (i: Instance) => boolean, what: string) => until(() => get(key, id), accept, what);

/** Waits until every report the agent sent so far is applied: reports of one machine arrive in order. */
async function barrier(key: string, id: string): Promise<void> {
  const percent = Math.floor(Math.random() * 100);
  agent.send({ type: "pull_progress", instance_id: id, percent });
  await until(
    async () => (await callJson<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`, { key })).body.items,
    (items) => items.some((e) => e.message === `Pulling image: ${percent}%`),
    "the reports sent before",
  );
}

async function launchRunning(key: string, template = "pytorch"): Promise<string> {
  const body = template === "vllm" ? { template, model: "qwen2.5-0.5b-instruct" } : { template };
  const { body: created } = await callJson<{ id: string }>("POST", "/v1/instances", { key, body: { gpu_model: "rtx4090", gpu_count: 1, ...body } });
  const create = await agent.waitForCommand(created.id, "create");
  expect(create.spec?.http_ports).toEqual(template === "vllm" ? [{ port: 8000, path: "/health" }] : [{ port: 8888, path: "/api" }]);
  agent.report(created.id, "running");
  await untilInstance(key, created.id, (i) => i.status === "running", "running");
  return created.id;
}

describe("port readiness", () => {
  it("a port the agent finds answering is ready since then, with one event per run however often it is reported", async () => {
    const { key } = await newAccount();
    const id = await launchRunning(key);
    expect((await get(key, id)).ports).toEqual([expect.objectContaining({ port: 8888, ready: false, ready_at: null })]);
    agent.send({ type: "readiness", instance_id: id, ready_ports: [8888] });
    const ready = await untilInstance(key, id, (i) => i.ports[0]!.ready, "ready");
    expect(ready.ports).toEqual([{ port: 8888, name: "jupyter", kind: "http", api: "jupyter", path: "/api", ready: true, ready_at: expect.any(String) }]);
    expect(Date.parse(ready.ports[0]!.ready_at!)).toBeGreaterThanOrEqual(Date.parse(ready.started_at!));
    expect(ready.status).toBe("running");
    // Reported again (a reconnect's hello says it anew): nothing changes.
    agent.send({ type: "readiness", instance_id: id, ready_ports: [8888, 9999] });
    agent.send({ type: "readiness", instance_id: id, ready_ports: [8888] });
    await barrier(key, id);
    expect((await get(key, id)).ports).toEqual(ready.ports);
    expect(await readyEvents(key, id)).toEqual([expect.stringMatching(/^port 8888 \(jupyter\) ready after \d+ s$/)]);
  });

  it("the event says how long after reaching running the port became ready", async () => {
    const { id: accountId, key } = await newAccount();
    const id = await launchRunning(key, "vllm");
    const startedMs = Date.parse((await get(key, id)).started_at!);
    // Applied directly, with a seq of its own: this account takes no later report from this machine.
    await env.ACCOUNTS.getByName(accountId).applyMachineReports(agent.machineId, [
      { seq: 9_000_000_001, kind: "ready", instance_id: id, ready_ports: [8000], at: startedMs + 73_400 },
    ]);
    expect(await readyEvents(key, id)).toEqual(["port 8000 (openai) ready after 73 s"]);
    expect((await get(key, id)).ports[0]).toMatchObject({ ready: true, ready_at: new Date(startedMs + 73_400).toISOString() });
  });

  it("a port that stops answering is not ready; ready again later, it gets a new time and no second event", async () => {
    const { key } = await newAccount();
    const id = await launchRunning(key);
    agent.send({ type: "readiness", instance_id: id, ready_ports: [8888] });
    const first = (await untilInstance(key, id, (i) => i.ports[0]!.ready, "ready")).ports[0]!.ready_at;
    agent.send({ type: "readiness", instance_id: id, ready_ports: [] });
    expect((await untilInstance(key, id, (i) => !i.ports[0]!.ready, "not ready")).ports[0]).toMatchObject({ ready: false, ready_at: null });
    agent.send({ type: "readiness", instance_id: id, ready_ports: [8888] });
    const again = (await untilInstance(key, id, (i) => i.ports[0]!.ready, "ready again")).ports[0]!.ready_at;
    expect(Date.parse(again!)).toBeGreaterThanOrEqual(Date.parse(first!));
    expect(await readyEvents(key, id)).toHaveLength(1);
  });

  it("stop makes every port not ready and a report arriving after it changes nothing; a start is a new run with its own event", async () => {
    const { key } = await newAccount();
    const id = await launchRunning(key);
    agent.send({ type: "readiness", instance_id: id, ready_ports: [8888] });
    await untilInstance(key, id, (i) => i.ports[0]!.ready, "ready");
    expect((await call("POST", `/v1/instances/${id}/stop`, { key })).status).toBe(204);
    expect((await get(key, id)).ports[0]).toMatchObject({ ready: false, ready_at: null });
    await agent.waitForCommand(id, "stop");
    // A probe result that crossed the stop on its way.
    agent.send({ type: "readiness", instance_id: id, ready_ports: [8888] });
    agent.report(id, "stopped");
    await barrier(key, id);
    expect((await get(key, id)).ports[0]).toMatchObject({ ready: false, ready_at: null });

    expect((await call("POST", `/v1/instances/${id}/start`, { key })).status).toBe(204);
    await agent.waitForCommand(id, "start");
    agent.report(id, "running");
    await untilInstance(key, id, (i) => i.status === "running", "running again");
    expect((await get(key, id)).ports[0]).toMatchObject({ ready: false, ready_at: null });
    agent.send({ type: "readiness", instance_id: id, ready_ports: [8888] });
    await untilInstance(key, id, (i) => i.ports[0]!.ready, "ready in the new run");
    expect(await readyEvents(key, id)).toHaveLength(2);
  });

  it("a ready report the MachineDO forwarded before it learnt of a stop changes nothing", async () => {
    const { id: accountId, key } = await newAccount();
    const id = await launchRunning(key);
    expect((await call("POST", `/v1/instances/${id}/stop`, { key })).status).toBe(204);
    // Applied directly, with a seq of its own: this account takes no later report from this machine.
    await env.ACCOUNTS.getByName(accountId).applyMachineReports(agent.machineId, [
      { seq: 9_100_000_001, kind: "ready", instance_id: id, ready_ports: [8888], at: Date.now() },
    ]);
    expect((await get(key, id)).ports[0]).toMatchObject({ ready: false, ready_at: null });
    expect(await readyEvents(key, id)).toEqual([]);
  });

  it("a host that goes offline leaves no port ready; back with its hello, the ports are ready again without a second event", async () => {
    const host = await FakeAgent.register("readiness-flaky-host");
    await host.connect(["rtx4090"]);
    const { key } = await newAccount();
    const { body } = await callJson<{ id: string }>("POST", "/v1/instances", { key, body: { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" } });
    const id = body.id;
    await host.waitForCommand(id, "create");
    host.report(id, "running");
    await untilInstance(key, id, (i) => i.status === "running", "running");
    host.send({ type: "readiness", instance_id: id, ready_ports: [8888] });
    await untilInstance(key, id, (i) => i.ports[0]!.ready, "ready");

    host.disconnect();
    const offline = await untilInstance(key, id, (i) => !i.machine_online, "offline");
    expect(offline.ports[0]).toMatchObject({ ready: false, ready_at: null });
    expect(offline.status).toBe("running");

    await host.connect(["rtx4090"], [{ instance_id: id, state: "running", message: "" }], [], {}, [{ instance_id: id, ready_ports: [8888] }]);
    const back = await untilInstance(key, id, (i) => i.machine_online && i.ports[0]!.ready, "online and ready");
    expect(back.ports[0]!.ready_at).toEqual(expect.any(String));
    expect(await readyEvents(key, id)).toHaveLength(1);
    host.disconnect();
  });
});
