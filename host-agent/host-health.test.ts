// A degraded host (its tenant firewall missing) against a fake MachineDO: the hello says why, creates
// and starts are refused with the reason, and a `health` message says when it is healthy again.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "../protocol/version.ts";
import { FakeMachineDo } from "../test/support/agent/fake-machine-do.ts";
import { testSpec } from "../test/support/agent/specs.ts";
import { startAgent, type RunningAgent } from "./agent.ts";
import { HostHealth } from "./host-health.ts";
import { createLogger } from "./log.ts";
import { LocalRuntime } from "./dev/local-runtime.ts";
import { SyntheticGpuLoad } from "./dev/synthetic-gpu-load.ts";

const ID = "i-degradedhost2345";
const REASON = "tenant firewall: the nftables table inet gpu_rental is missing (fix: run firewall.sh as root)";
let fake: FakeMachineDo;
let agent: RunningAgent;
let stateDir: string;
const health = new HostHealth();

beforeAll(async () => {
  fake = new FakeMachineDo("secret");
  const server = await fake.listen();
  stateDir = await mkdtemp(join(tmpdir(), "host-health-"));
  health.set("firewall", REASON);
  agent = startAgent({
    connectUrl: `${server.replace("http:", "ws:")}/agent/v1/connect`,
    token: "secret",
    runtime: new LocalRuntime({ stateDir, readyDelayMs: 0, pullMs: 0 }),
    gpus: [],
    versions: { driver: "580.126.09", cuda: "13.0" },
    resources: { memory_bytes: 64 * 1024 ** 3, cpus: 16 },
    cacheDir: join(stateDir, "hf-cache"),
    log: createLogger(() => {}),
    metrics: { gpus: new SyntheticGpuLoad([]), intervalMs: 60_000 },
    health,
  });
});
afterAll(async () => {
  await agent?.close();
  await fake?.close();
  await rm(stateDir, { recursive: true, force: true });
});

describe("a degraded host", () => {
  it("says why in its hello", async () => {
    expect(await fake.waitFor("hello")).toMatchObject({ degraded: REASON });
    fake.send({ type: "welcome", protocol: PROTOCOL_VERSION, machine_id: 3, heartbeat_ms: 1000 });
  });

  it("refuses a create with the reason, before pulling anything", async () => {
    const from = fake.received.length;
    fake.send({ type: "command", command_id: "c-refused", op: "create", instance_id: ID, spec: testSpec(ID) });
    const ack = await fake.waitFor("ack", (m) => m.command_id === "c-refused", from);
    const message = `create failed: this host takes no new instances now: ${REASON}`;
    expect(ack).toEqual({ type: "ack", command_id: "c-refused", ok: false, error: message });
    expect(fake.messages().slice(-2)[0]).toEqual({ type: "container", instance_id: ID, state: "error", message });
    expect(fake.messages().filter((m) => m.type === "container" && m.state === "pulling")).toEqual([]);
  });

  it("tells the MachineDO when it is healthy again, and takes the create then", async () => {
    const from = fake.received.length;
    health.set("firewall", null);
    expect(await fake.waitFor("health", () => true, from)).toEqual({ type: "health", degraded: "" });
    fake.send({ type: "command", command_id: "c-taken", op: "create", instance_id: ID, spec: testSpec(ID) });
    expect(await fake.waitFor("ack", (m) => m.command_id === "c-taken", from)).toMatchObject({ ok: true });
    fake.send({ type: "command", command_id: "c-gone", op: "destroy", instance_id: ID, spec: null });
    await fake.waitFor("ack", (m) => m.command_id === "c-gone", from);
  });
});
