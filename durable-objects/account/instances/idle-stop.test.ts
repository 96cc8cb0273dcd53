// The idle stop in workerd, through the real Worker, AccountDO and MachineDO, the samples and traffic
// carried by agents speaking the protocol, on a frozen clock moved by the test (the AccountDO's alarm
// run as the platform would once the time has passed): it stops exactly once, exactly when the
// instance has been idle for its minutes, not while traffic flows, an SSH connection or a terminal is
// open or a GPU works, not while the host is away; PATCH changes or cancels it; bad values are
// refused naming the field.
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { clock } from "../../../core/clock.ts";
import type { ServerMessage } from "../../../protocol/messages.ts";
import type { InstanceUsage } from "../../../protocol/index.ts";
import { admin, call, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";
import { asBrowser, browser, signUp } from "../../../test/support/workerd/session-client.ts";
import { until } from "../../../test/support/workerd/poll.ts";
import { advanceClock, freezeClockInEachTest } from "../../../test/support/workerd/test-clock.ts";

const MINUTE = 60_000;
const REASON = "stopped after 5 min idle";
type HttpRequest = Extract<ServerMessage, { type: "http_request" }>;
type SessionOpen = Extract<ServerMessage, { type: "ssh_open" | "terminal_open" }>;
type Shown = { id: string; status: string; status_message: string; desired_state: string; idle_stop_minutes: number | null; label: string };

let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("idle-host", Array(8).fill("rtx4090"));
});
freezeClockInEachTest();

const get = async (key: string, id: string) => (await callJson<Shown>("GET", `/v1/instances/${id}`, { key })).body;
const events = async (key: string, id: string) =>
  (await callJson<{ items: { message: string }[] }>("GET", `/v1/instances/${id}/events`, { key })).body.items.map((e) => e.message);

/** Moves the clock to `ms` after `fromMs` and rings the account's alarm, as the platform would then. */
async function passTo(accountId: string, fromMs: number, ms: number): Promise<void> {
  advanceClock(fromMs + ms - clock.now());
  await runDurableObjectAlarm(env.ACCOUNTS.getByName(accountId));
}

/** Each instance's GPU index, from its create command (a reconnecting agent forgets the commands it had). */
const gpuIndex = new Map<string, number>();

/** Launches as runningOn does, noting the instance's GPU. */
async function running(host: FakeAgent, key: string, body: Record<string, unknown> = {}): Promise<string> {
  const id = await runningOn(host, key, body);
  gpuIndex.set(id, (await host.waitForCommand(id, "create")).spec!.gpu_indices[0]!);
  return id;
}

/** Moves the clock to the next 10-s boundary (a sample's interval starts there): the time it stops at is then exact. */
function alignedNow(): number {
  advanceClock(10_000 - (clock.now() % 10_000));
  return clock.now();
}

/** Until the instance is stopped (an alarm the platform rang at the same time may be finishing the stop). */
const stopped = (key: string, id: string) => until(() => get(key, id), (i) => i.status === "stopped", "the idle stop");

/** The host's sample of the instances now (each one's GPU at `util` %, all in one report), once the API has it. */
async function sampled(host: FakeAgent, key: string, ids: string | string[], util: number): Promise<void> {
  const usages: InstanceUsage[] = [ids].flat().map((id) => ({
    instance_id: id, cpu_percent: 10, memory_used_mib: 512,
    gpus: [{ index: gpuIndex.get(id)!, util_percent: util, memory_used_mib: 100, memory_total_mib: 24_564, power_w: 60, power_limit_w: 450, temperature_c: 40, sm_clock_mhz: 210 }],
  }));
  host.send({ type: "metrics", instances: usages });
  const t = new Date(Math.floor(clock.now() / 10_000) * 10_000).toISOString();
  for (const id of [ids].flat()) {
    await until(() => callJson<{ container: { t: string }[] }>("GET", `/v1/instances/${id}/metrics`, { key }), (r) => r.body.container.some((p) => p.t === t), "the sample");
  }
}

/**
 * An SSH connection (`ssh_open`) or a terminal (`terminal_open`) to the instance, opened through the
 * Worker with `headers` and accepted as the agent does; `close` ends it from the client's side, once
 * the agent has been told.
 */
async function openSession(id: string, kind: "ssh_open" | "terminal_open", headers: Record<string, string>): Promise<{ close(): Promise<void> }> {
  const opening = agent.waitFor((m): m is SessionOpen => m.type === kind && m.instance_id === id);
  const response = call("GET", `/v1/instances/${id}/${kind === "ssh_open" ? "ssh" : "terminal"}`, { headers: { upgrade: "websocket", ...headers } });
  const { stream } = await opening;
  agent.send({ type: "ws_accepted", stream, protocol: "" });
  const socket = (await response).webSocket!;
  socket.accept();
  return {
    async close() {
      const told = agent.waitFor((m) => m.type === "ws_close" && m.stream === stream);
      socket.close(1000, "done");
      await told;
    },
  };
}

/** Samples every minute from `fromMs + fromMin` to `fromMs + toMin` minutes, running the alarm at each; the status at the end. */
async function idleMinutes(host: FakeAgent, account: { id: string; key: string }, id: string, fromMs: number, fromMin: number, toMin: number): Promise<string> {
  for (let minute = fromMin; minute <= toMin; minute++) {
    await passTo(account.id, fromMs, minute * MINUTE);
    if ((await get(account.key, id)).status !== "running") break;
    await sampled(host, account.key, id, 2);
  }
  return (await get(account.key, id)).status;
}

describe("idle stop", () => {
  it("stops an instance idle for its minutes exactly then, once, as a stop does: event, status_message, webhook, GPU freed", async () => {
    const account = await newAccount(10_000_000);
    const hook = await callJson<{ id: string }>("POST", "/v1/webhooks", {
      key: account.key, body: { url: "http://127.0.0.1:9/hook", events: ["instance.status_changed"] }, base: "http://127.0.0.1:8787",
    });
    expect(hook.status).toBe(201);
    const t0 = alignedNow();
    const id = await running(agent, account.key, { idle_stop_minutes: 5 });
    expect(await get(account.key, id)).toMatchObject({ idle_stop_minutes: 5 });

    expect(await idleMinutes(agent, account, id, t0, 0, 4)).toBe("running");
    await passTo(account.id, t0, 5 * MINUTE - 1);
    expect((await get(account.key, id)).status).toBe("running");
    await passTo(account.id, t0, 5 * MINUTE);
    expect(await stopped(account.key, id)).toMatchObject({ status: "stopped", desired_state: "stopped", status_message: REASON, idle_stop_minutes: 5 });
    expect((await events(account.key, id))[0]).toBe("Stopped after 5 min idle; GPUs released and billing stopped");
    await agent.waitForCommand(id, "stop");

    await passTo(account.id, t0, 30 * MINUTE);
    expect((await events(account.key, id)).filter((m) => m.includes("idle;"))).toHaveLength(1);
    const changes = await runInDurableObject(env.ACCOUNTS.getByName(account.id), (_, state) =>
      state.storage.sql.exec("SELECT data FROM webhook_events WHERE type = 'instance.status_changed'").toArray().map((row) => JSON.parse(String(row.data))));
    expect(changes.filter((data) => data.to === "stopped")).toEqual([{ instance_id: id, label: "", from: "running", to: "stopped", status_message: REASON }]);
    // Started again, its clock starts again with the new run.
    expect((await call("POST", `/v1/instances/${id}/start`, { key: account.key })).status).toBe(204);
    agent.report(id, "running");
    await until(() => get(account.key, id), (i) => i.status === "running", "running again");
    expect(await get(account.key, id)).toMatchObject({ status_message: "" });
  }, 60_000);

  it("a GPU at 5 % or more, or a proxied request, starts the clock again; an open request holds it", async () => {
    const account = await newAccount(10_000_000);
    const t0 = alignedNow();
    const id = await running(agent, account.key, { idle_stop_minutes: 5 });
    expect(await idleMinutes(agent, account, id, t0, 0, 2)).toBe("running");
    // 3 min: a busy GPU in the sample of 3:00 to 3:10.
    await passTo(account.id, t0, 3 * MINUTE);
    await sampled(agent, account.key, id, 5);
    const st = await idleMinutes(agent, account, id, t0, 4, 8);
    expect(st).toBe("running");
    await passTo(account.id, t0, 8 * MINUTE + 10_000 - 1);
    expect((await get(account.key, id)).status).toBe("running");

    // 8:09.999: a request opens, and stays open for 10 minutes.
    const pending = call("GET", `/v1/instances/${id}/proxy/8888/work`, { key: account.key });
    const request = await agent.waitFor((m): m is HttpRequest => m.type === "http_request" && m.instance_id === id);
    const opened = clock.now();
    expect(await idleMinutes(agent, account, id, opened, 1, 10)).toBe("running");
    agent.send({ type: "http_response", stream: request.stream, status: 200, headers: [] });
    agent.send({ type: "end", stream: request.stream });
    const response = await pending;
    expect([response.status, await response.text()]).toEqual([200, ""]);
    const closed = clock.now();
    expect(await idleMinutes(agent, account, id, closed, 1, 4)).toBe("running");
    await passTo(account.id, closed, 5 * MINUTE - 1);
    expect((await get(account.key, id)).status).toBe("running");
    await passTo(account.id, closed, 5 * MINUTE);
    expect(await stopped(account.key, id)).toMatchObject({ status: "stopped", status_message: REASON });
  }, 60_000);

  it("an SSH connection or the dashboard's terminal holds the clock for as long as it is open, and starts it again as it closes", async () => {
    const account = await signUp();
    await admin("POST", `/accounts/${account.id}/credits`, { amount_micros: 10_000_000 });
    const key = (await asBrowser("POST", "/v1/keys", account.session, { body: { name: "idle" } })).body.key as string;
    const t0 = alignedNow();
    const viaSsh = await running(agent, key, { idle_stop_minutes: 5 });
    const viaTerminal = await running(agent, key, { idle_stop_minutes: 5 });
    const ssh = await openSession(viaSsh, "ssh_open", { authorization: `Bearer ${key}` });
    const terminal = await openSession(viaTerminal, "terminal_open", browser(account.session));
    // Ten minutes with both open and nothing sent: twice the limit.
    for (let minute = 1; minute <= 10; minute++) {
      await passTo(account.id, t0, minute * MINUTE);
      await sampled(agent, key, [viaSsh, viaTerminal], 2);
    }
    expect([(await get(key, viaSsh)).status, (await get(key, viaTerminal)).status]).toEqual(["running", "running"]);
    await Promise.all([ssh.close(), terminal.close()]);
    const closed = clock.now();
    for (let minute = 1; minute <= 4; minute++) {
      await passTo(account.id, closed, minute * MINUTE);
      await sampled(agent, key, [viaSsh, viaTerminal], 2);
    }
    await passTo(account.id, closed, 5 * MINUTE - 1);
    expect([(await get(key, viaSsh)).status, (await get(key, viaTerminal)).status]).toEqual(["running", "running"]);
    await passTo(account.id, closed, 5 * MINUTE);
    expect(await stopped(key, viaSsh)).toMatchObject({ status_message: REASON });
    expect(await stopped(key, viaTerminal)).toMatchObject({ status_message: REASON });
  }, 60_000);

  it("time its host is away does not count: the clock starts again when it is back", async () => {
    const host = await FakeAgent.online("idle-away-host", ["rtx4090"]);
    const account = await newAccount(10_000_000);
    const t0 = alignedNow();
    const id = await running(host, account.key, { idle_stop_minutes: 5 });
    expect(await idleMinutes(host, account, id, t0, 0, 3)).toBe("running");
    await host.leave();
    await passTo(account.id, t0, 30 * MINUTE);
    expect((await get(account.key, id)).status).toBe("running");

    const back = clock.now();
    await host.connect(["rtx4090"], [{ instance_id: id, state: "running", message: "" }]);
    expect(await idleMinutes(host, account, id, back, 0, 4)).toBe("running");
    await passTo(account.id, back, 5 * MINUTE - 1);
    expect((await get(account.key, id)).status).toBe("running");
    await passTo(account.id, back, 5 * MINUTE);
    await stopped(account.key, id);
    await host.leave();
  }, 60_000);

  it("a machine that does not answer is asked again a minute later; nothing is stopped on no answer", async () => {
    const account = await newAccount(10_000_000);
    const t0 = alignedNow();
    const id = await running(agent, account.key, { idle_stop_minutes: 5 });
    expect(await idleMinutes(agent, account, id, t0, 0, 4)).toBe("running");
    // The MachineDO's idleSince fails (patched on its class, which the objects share with this test's isolate).
    const restore = await runInDurableObject(env.MACHINES.getByName(String(agent.machineId)), (instance) => {
      const prototype = Object.getPrototypeOf(instance) as { idleSince(...args: unknown[]): unknown };
      const idleSince = prototype.idleSince;
      prototype.idleSince = () => {
        throw new Error("the machine's object is down");
      };
      return () => {
        prototype.idleSince = idleSince;
      };
    });
    try {
      await sampled(agent, account.key, id, 2);
      await passTo(account.id, t0, 5 * MINUTE);
      expect((await get(account.key, id)).status).toBe("running");
      const checkAt = await runInDurableObject(env.ACCOUNTS.getByName(account.id), (_, state) =>
        state.storage.sql.exec<{ at: number }>("SELECT idle_check_ms AS at FROM instances WHERE id = ?", id).one().at);
      expect(checkAt).toBe(t0 + 6 * MINUTE);
    } finally {
      restore();
    }
    await sampled(agent, account.key, id, 2);
    await passTo(account.id, t0, 6 * MINUTE);
    await stopped(account.key, id);
  }, 60_000);

  it("without a current sample nothing is known to be idle: no stop", async () => {
    const account = await newAccount(10_000_000);
    const t0 = alignedNow();
    const id = await running(agent, account.key, { idle_stop_minutes: 5 });
    await passTo(account.id, t0, 20 * MINUTE);
    expect((await get(account.key, id)).status).toBe("running");
  }, 60_000);

  it("PATCH sets it (its clock from then), changes it, and null cancels it", async () => {
    const account = await newAccount(10_000_000);
    const t0 = alignedNow();
    const id = await running(agent, account.key);
    expect((await get(account.key, id)).idle_stop_minutes).toBeNull();
    expect(await idleMinutes(agent, account, id, t0, 0, 10)).toBe("running");

    const patched = await callJson<Shown>("PATCH", `/v1/instances/${id}`, { key: account.key, body: { idle_stop_minutes: 5 } });
    expect(patched).toMatchObject({ status: 200, body: { idle_stop_minutes: 5, label: "" } });
    const set = clock.now();
    expect(await idleMinutes(agent, account, id, set, 1, 3)).toBe("running");
    expect((await callJson<Shown>("PATCH", `/v1/instances/${id}`, { key: account.key, body: { idle_stop_minutes: null } })).body.idle_stop_minutes).toBeNull();
    expect(await idleMinutes(agent, account, id, set, 4, 12)).toBe("running");

    // A label alone keeps the idle stop; both at once set both.
    const both = await callJson<Shown>("PATCH", `/v1/instances/${id}`, { key: account.key, body: { label: "quiet", idle_stop_minutes: 6 } });
    expect(both.body).toMatchObject({ label: "quiet", idle_stop_minutes: 6 });
    expect((await callJson<Shown>("PATCH", `/v1/instances/${id}`, { key: account.key, body: { label: "still quiet" } })).body.idle_stop_minutes).toBe(6);
    expect((await events(account.key, id)).slice(0, 4)).toEqual([
      'Renamed to "still quiet"', "Idle stop set: stopped after 6 min idle", 'Renamed to "quiet"', "Idle stop turned off",
    ]);
    const again = clock.now();
    expect(await idleMinutes(agent, account, id, again, 1, 5)).toBe("running");
    await passTo(account.id, again, 6 * MINUTE);
    expect(await stopped(account.key, id)).toMatchObject({ status: "stopped", status_message: "stopped after 6 min idle" });
  }, 60_000);

  it("refuses idle_stop_minutes outside 5 to 1440 or not an integer, on launch and on PATCH, changing nothing", async () => {
    const { key } = await newAccount(10_000_000);
    const id = await running(agent, key, { idle_stop_minutes: 1440, label: "kept" });
    const rule = "idle_stop_minutes: must be an integer from 5 to 1440, or null for never";
    for (const value of [4, 1441, 0, -5, 30.5, "30", true, {}]) {
      const launched = await callJson("POST", "/v1/instances", { key, body: { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch", idle_stop_minutes: value } });
      expect(launched, `launch ${JSON.stringify(value)}`).toMatchObject({ status: 400, body: { error: "invalid", message: rule } });
      const patched = await callJson("PATCH", `/v1/instances/${id}`, { key, body: { label: "changed", idle_stop_minutes: value } });
      expect(patched, `PATCH ${JSON.stringify(value)}`).toMatchObject({ status: 400, body: { error: "invalid", message: rule } });
    }
    expect(await callJson("PATCH", `/v1/instances/${id}`, { key, body: {} })).toMatchObject({
      status: 400, body: { error: "invalid", message: "body: must set label, idle_stop_minutes or both" },
    });
    expect(await get(key, id)).toMatchObject({ label: "kept", idle_stop_minutes: 1440 });
    const stranger = await newAccount();
    expect(await callJson("PATCH", `/v1/instances/${id}`, { key: stranger.key, body: { idle_stop_minutes: null } })).toMatchObject({ status: 404 });
    expect((await get(key, id)).idle_stop_minutes).toBe(1440);
  }, 60_000);
});
