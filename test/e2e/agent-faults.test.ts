// Host agents killed (SIGKILL, as a crash or the OOM killer would) on the real stack: mid-download and
// mid-launch. Nothing hangs, the instance keeps its state, nothing is billed while its host is away,
// and a launch ends `running` once the agent is back, or `error` when it stays away past the timeout.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { poll, useE2eStack, type Instance } from "./support/e2e-stack.ts";

/** Short enough to wait for here; long enough for a killed agent to come back within it. */
const LAUNCH_TIMEOUT_MS = 12_000;
/** A pull slow enough to kill the agent in the middle of it. */
const SLOW_PULL = { DEV_PULL_MS: "60000" };
const HOUR_MS = 3_600_000;

const stack = useE2eStack({ LAUNCH_TIMEOUT_MS: String(LAUNCH_TIMEOUT_MS) });

type Shown = Instance & { machine_online: boolean; status_message: string; started_at: string | null };
interface Event {
  message: string;
  created_at: string;
}
interface LedgerEntry {
  kind: string;
  amount_micros: number;
  instance_id: string | null;
  created_at: string;
}

const auth = () => ({ authorization: `Bearer ${stack.key}` });
const get = async (id: string) => (await stack.api<Shown>("GET", `/v1/instances/${id}`)).body;
const events = async (id: string) => (await stack.api<{ items: Event[] }>("GET", `/v1/instances/${id}/events`)).body.items;
const eventAt = (log: Event[], fragment: string) => {
  const found = log.filter((e) => e.message.includes(fragment));
  expect(found.length, `one "${fragment}" in ${JSON.stringify(log)}`).toBe(1);
  return Date.parse(found[0]!.created_at);
};

/** Kills the agent process alone (its local containers notice their parent is gone and exit). */
function killAgent(name: string): void {
  process.kill(stack.agents.get(name)!.process.pid!, "SIGKILL");
}

/** Reads a response body to its end; "ended" or the error that cut it. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  try {
    for (;;) if ((await reader.read()).done) return "ended";
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

/** Restarts `name` with its slow pull and waits until the machine is online. */
async function restartWithSlowPull(name: string): Promise<void> {
  await stack.stopAgent(name);
  stack.startAgent(name, SLOW_PULL);
  await stack.waitForMachines({ [name]: true });
}

describe("an agent killed", () => {
  it("mid-download: the download fails at once, the instance stays running while its host is away, serves again, and the time away is not billed", async () => {
    const instance = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" });
    const total = 1024 ** 3;
    const response = await fetch(stack.proxyUrl(instance, 8888, `/bytes?n=${total}`), { headers: auth() });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let received = 0;
    while (received < 4 * 1024 ** 2) received += (await reader.read()).value!.byteLength;

    killAgent("dev-1");
    // Awaited before anything else happens: a stream left hanging fails the test by its timeout.
    expect(await drain(reader)).toMatch(/^error: /);
    const away = await poll(() => get(instance.id), (i) => !i.machine_online);
    expect(away.status).toBe("running");
    expect((await fetch(stack.proxyUrl(instance, 8888, "/health"), { headers: auth() })).status).toBe(502);

    stack.startAgent("dev-1");
    const back = await poll(() => get(instance.id), (i) => i.machine_online);
    expect(back).toMatchObject({ status: "running", started_at: instance.started_at });
    await poll(() => fetch(stack.proxyUrl(instance, 8888, "/health"), { headers: auth() }).then((r) => r.status), (status) => status === 200);
    expect((await stack.api("POST", `/v1/instances/${instance.id}/stop`)).status).toBe(204);

    // The ledger: every charge row of the instance starts in a time it was running on an online host
    // (the host's leaving closed the hour's row; its return opened another), and together they are
    // exactly its price for that time, so none covers the time away.
    const log = await events(instance.id);
    const startedMs = Date.parse(instance.started_at!);
    const offMs = eventAt(log, "Host went offline");
    const onMs = eventAt(log, "Host is back online");
    const stoppedMs = eventAt(log, "Stop requested");
    const ledger = (await stack.api<{ items: LedgerEntry[] }>("GET", "/v1/billing/ledger?limit=200")).body.items;
    const charges = ledger.filter((entry) => entry.kind === "charge" && entry.instance_id === instance.id);
    expect(charges.length).toBeGreaterThanOrEqual(2);
    for (const { created_at } of charges) {
      const fromMs = Date.parse(created_at);
      expect((fromMs >= startedMs && fromMs < offMs) || (fromMs >= onMs && fromMs < stoppedMs), `a charge from ${created_at}`).toBe(true);
    }
    const billedMs = offMs - startedMs + (stoppedMs - onMs);
    const charged = -charges.reduce((sum, entry) => sum + entry.amount_micros, 0);
    expect(charged).toBe(Math.floor((instance.price_hour_micros * billedMs) / HOUR_MS));
    await stack.api("DELETE", `/v1/instances/${instance.id}`);
  }, 40_000);

  it("mid-launch and back within the launch timeout: the launch completes and the instance runs", async () => {
    await restartWithSlowPull("dev-2");
    const created = await stack.api<Shown>("POST", "/v1/instances", { gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" });
    expect(created.status).toBe(201);
    const id = created.body.id;
    await poll(() => events(id), (log) => log.some((e) => e.message.startsWith("Pulling image")));
    killAgent("dev-2");
    expect((await poll(() => get(id), (i) => !i.machine_online)).status).toBe("creating");

    stack.startAgent("dev-2");
    const running = await poll(() => get(id), (i) => i.status === "running");
    expect(running).toMatchObject({ machine_online: true, status_message: "" });
    await stack.api("DELETE", `/v1/instances/${id}`);
  }, 40_000);

  it("mid-launch and away past the launch timeout: the instance is error with the reason, and stays so when the agent returns", async () => {
    await restartWithSlowPull("dev-2");
    const created = await stack.api<Shown>("POST", "/v1/instances", { gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch" });
    const id = created.body.id;
    await poll(() => events(id), (log) => log.some((e) => e.message.startsWith("Pulling image")));
    killAgent("dev-2");

    const failed = await poll(() => get(id), (i) => i.status !== "creating", LAUNCH_TIMEOUT_MS + 10_000);
    expect(failed).toMatchObject({
      status: "error",
      status_message: "the host did not start the container within 12 seconds; its GPUs are released (start the instance to try again)",
      machine_online: false,
    });
    stack.startAgent("dev-2");
    expect(await poll(() => get(id), (i) => i.machine_online)).toMatchObject({ status: "error" });
    // The interrupted create is not taken up again: the host has no container for it.
    expect(existsSync(join(stack.stateDir, "agents", "dev-2", "containers", id))).toBe(false);
    const h100 = async () => (await stack.api<{ gpus: { model: string; free_gpus: number }[] }>("GET", "/v1/gpus")).body.gpus.find((g) => g.model === "h100-80gb")!;
    await poll(h100, (g) => g.free_gpus === 2);
    await stack.api("DELETE", `/v1/instances/${id}`);
  }, 40_000);
});
