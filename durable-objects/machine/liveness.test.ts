// Agent liveness without a write or a wake-up per heartbeat: the runtime answers heartbeats (also
// while the MachineDO hibernates), and the alarm reads when it last did. The tests run with
// HEARTBEAT_TIMEOUT_MS = 3000 (vitest.config.ts), so the agent heartbeats every second.
import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { evictDurableObject } from "cloudflare:test";
import { admin, machineOnline } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { until } from "../../test/support/workerd/poll.ts";
import { meterStorage } from "../../test/support/workerd/storage-meter.ts";
import { MachineDO } from "./machine-do.ts";

/** Two heartbeat timeouts (3 s): a machine still online after them is kept alive by its heartbeats. */
const HEARTBEATS_PER_TEST = 6;
/**
 * The going-offline case takes 9 s alone (six heartbeats a second apart, then the 3 s timeout), and
 * outran 15 s once under CI's full load; each case waits for states and asserts no time.
 */
const LONG_TEST_MS = 30_000;

const lastSeenAt = async (id: number) =>
  ((await admin("GET", "/machines")).body.items as { id: number; last_seen_at: string | null }[]).find((m) => m.id === id)!.last_seen_at;

/** A connected agent whose hello has settled: its machine is online in the fleet index. */
async function connected(name: string): Promise<FakeAgent> {
  const agent = await FakeAgent.register(name);
  await agent.connect(["rtx4090"]);
  await until(() => machineOnline(agent.machineId), (online) => online, "online");
  return agent;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("liveness", () => {
  // Per hour of an idle, connected machine at the production timeout (15 s, a heartbeat every 5 s,
  // 720 heartbeats): 0 SQLite rows written, 0 alarms set and 0 wake-ups by heartbeats. What remains
  // is the liveness alarm, one wake-up and one alarm set (no row) at each last heartbeat + 15 s:
  // every 10 to 15 s, 240 to 360 an hour. Before this design each heartbeat woke the object, wrote
  // last_seen_ms and set the alarm: 720 rows written and 720 alarms set an hour.
  it("an idle, connected machine writes 0 SQLite rows per hour of heartbeats, and heartbeats neither wake it nor set its alarm", async () => {
    const agent = await connected("idle");
    const frames = vi.spyOn(MachineDO.prototype, "webSocketMessage");
    const alarms = vi.spyOn(MachineDO.prototype, "alarm");
    const meter = await meterStorage(env.MACHINES.getByName(String(agent.machineId)));
    try {
      const acksBefore = agent.heartbeatAcks();
      const [rowsBefore, setsBefore, ringsBefore] = [meter.rowsWritten(), meter.alarmsSet(), alarms.mock.calls.length];
      // Six heartbeat periods: two timeouts' worth of the machine staying online.
      await agent.waitForHeartbeatAcks(acksBefore + HEARTBEATS_PER_TEST);
      expect(await machineOnline(agent.machineId)).toBe(true);
      const rings = alarms.mock.calls.length - ringsBefore;
      expect(meter.rowsWritten() - rowsBefore).toBe(0);
      expect(frames).not.toHaveBeenCalled();
      expect(rings).toBeGreaterThan(0);
      expect(meter.alarmsSet() - setsBefore).toBe(rings);
    } finally {
      await meter.stop();
      agent.disconnect();
    }
  }, LONG_TEST_MS);

  it("hibernated between heartbeats, a machine stays online on the runtime's answers and goes offline when they stop", async () => {
    const agent = await connected("sleeper");
    await evictDurableObject(env.MACHINES.getByName(String(agent.machineId)));
    const acks = agent.heartbeatAcks();
    await agent.waitForHeartbeatAcks(acks + HEARTBEATS_PER_TEST);
    expect(await machineOnline(agent.machineId)).toBe(true);
    agent.stopHeartbeats();
    await until(() => machineOnline(agent.machineId), (online) => !online, "the machine to go offline", 200);
    agent.disconnect();
  }, LONG_TEST_MS);

  it("a heartbeat encoded otherwise reaches the MachineDO, is answered, and keeps the machine online", async () => {
    const agent = await connected("spaced");
    agent.stopHeartbeats();
    const acks = agent.heartbeatAcks();
    const spaced = setInterval(() => agent.sendText('{ "type": "heartbeat" }'), 500);
    try {
      await agent.waitForHeartbeatAcks(acks + HEARTBEATS_PER_TEST);
      expect(await machineOnline(agent.machineId)).toBe(true);
    } finally {
      clearInterval(spaced);
      agent.disconnect();
    }
  }, LONG_TEST_MS);

  it("once offline, the machine's last_seen_at is its last answered heartbeat, not its hello", async () => {
    const agent = await connected("last-seen");
    const atHello = await lastSeenAt(agent.machineId);
    await agent.waitForHeartbeatAcks(agent.heartbeatAcks() + 2);
    agent.disconnect();
    await until(() => machineOnline(agent.machineId), (online) => !online, "offline");
    expect(Date.parse((await lastSeenAt(agent.machineId))!)).toBeGreaterThan(Date.parse(atHello!));
  });
});
