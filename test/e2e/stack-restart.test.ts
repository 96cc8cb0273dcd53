// The whole local stack stopped and started again on its state (wrangler dev and the agents, as a
// host reboot would): every account, key, session, balance, instance and event is kept; running
// instances serve again and stopped ones stay stopped.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { poll, startE2eStack, type E2eStack, type Instance } from "./support/e2e-stack.ts";

let first: E2eStack;
let second: E2eStack | undefined;

beforeAll(async () => {
  first = await startE2eStack();
}, 120_000);

afterAll(async () => {
  await second?.stop();
  await first?.stop();
});

interface Event {
  message: string;
  created_at: string;
}
interface LedgerEntry {
  id: number;
  kind: string;
  pending: boolean;
  amount_micros: number;
  balance_after_micros: number;
  instance_id: string | null;
}
type Shown = Instance & { machine_online: boolean };

/** What a customer can read of an account, with what a restart may rightly change left out. */
async function snapshot(stack: E2eStack, key: string) {
  const read = async <T,>(path: string) => {
    const { status, body } = await stack.api<T>("GET", path, undefined, key);
    expect(status, path).toBe(200);
    return body;
  };
  const me = await read<{ account: unknown; balance_micros: number }>("/v1/me");
  const keys = (await read<{ items: { last_used_at: string | null }[] }>("/v1/keys")).items.map(({ last_used_at: _, ...kept }) => kept);
  const instances = (await read<{ items: Shown[] }>("/v1/instances")).items;
  const events: Record<string, Event[]> = {};
  for (const { id } of instances) events[id] = (await read<{ items: Event[] }>(`/v1/instances/${id}/events`)).items;
  const ledger = (await read<{ items: LedgerEntry[] }>("/v1/billing/ledger?limit=200")).items;
  return {
    account: me.account,
    balance: me.balance_micros,
    keys,
    // Port readiness is probed anew after a restart, and the host was away for it; GPU utilisation is sampled anew.
    instances: instances.map(({ machine_online: _, gpu_util_percent: _util, ports, ...kept }) => ({ ...kept, ports: ports.map(({ port, name, kind, api, path }) => ({ port, name, kind, api, path })) })),
    events,
    ledger,
  };
}

/** `older` (newest first) is exactly the oldest part of `newer`; returns what `newer` has on top. */
function newerPart<T>(older: T[], newer: T[]): T[] {
  expect(newer.slice(newer.length - older.length)).toEqual(older);
  return newer.slice(0, newer.length - older.length);
}

async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${first.baseUrl}/admin/v1${path}`, {
    method,
    headers: { authorization: "Bearer e2e-admin-token", "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.ok, `${method} ${path}`).toBe(true);
  return (await response.json()) as Record<string, unknown>;
}

async function signIn(stack: E2eStack): Promise<string> {
  const response = await fetch(`${stack.baseUrl}/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: stack.setup.account.email, password: stack.setup.account.password }),
  });
  expect(response.status).toBe(200);
  return response.headers.getSetCookie().find((c) => c.startsWith("gpr_session="))!.split(";")[0]!;
}

const health = (stack: E2eStack, instance: Instance, key: string) =>
  fetch(stack.proxyUrl(instance, 8888, "/health"), { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);

async function stoppedInstance(stack: E2eStack, key: string, gpuModel: string): Promise<Instance> {
  const created = await stack.api<Instance>("POST", "/v1/instances", { gpu_model: gpuModel, gpu_count: 1, template: "pytorch" }, key);
  expect(created.status).toBe(201);
  await poll(() => stack.api<Shown>("GET", `/v1/instances/${created.body.id}`, undefined, key), (r) => r.body.status === "running");
  expect((await stack.api("POST", `/v1/instances/${created.body.id}/stop`, undefined, key)).status).toBe(204);
  await poll(() => stack.api<{ items: Event[] }>("GET", `/v1/instances/${created.body.id}/events`, undefined, key),
    (r) => r.body.items.some((e) => e.message.startsWith("Container stopped")));
  return created.body;
}

describe("the whole stack restarted", () => {
  it("keeps every account, key, session, balance, instance and event; running instances serve again, stopped ones stay stopped", async () => {
    // A second account: made by the operator, credited, with a key of its own and a stopped instance.
    const other = await admin("POST", "/accounts", { balance_micros: 30_000_000 });
    await admin("POST", `/accounts/${other.id as string}/credits`, { amount_micros: 5_000_000, note: "top-up" });
    const otherKey = (await admin("POST", `/accounts/${other.id as string}/keys`, { name: "ci" })).key as string;
    const otherStopped = await stoppedInstance(first, otherKey, "h100-80gb");
    // The dev account: a key made and one revoked, a session, a running and a stopped instance.
    expect((await first.api("POST", "/v1/keys", { name: "laptop" })).status).toBe(201);
    const revoked = await first.api<{ id: string }>("POST", "/v1/keys", { name: "old" });
    expect((await first.api("DELETE", `/v1/keys/${revoked.body.id}`)).status).toBe(204);
    const session = await signIn(first);
    const running = await first.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" });
    const stopped = await stoppedInstance(first, first.key, "rtx4090");

    const before = { dev: await snapshot(first, first.key), other: await snapshot(first, otherKey) };
    await first.stop({ keepState: true });
    second = await startE2eStack({}, {}, { resume: { stateDir: first.stateDir, baseUrl: first.baseUrl } });
    expect(second.key).toBe(first.key);
    expect(second.setup.machines).toEqual(first.setup.machines);
    // Back online: the hosts' return has reached every instance.
    for (const [key, ids] of [[first.key, [running.id, stopped.id]], [otherKey, [otherStopped.id]]] as const) {
      for (const id of ids) await poll(() => second!.api<Shown>("GET", `/v1/instances/${id}`, undefined, key), (r) => r.body.machine_online);
    }
    const after = { dev: await snapshot(second, first.key), other: await snapshot(second, otherKey) };

    for (const side of ["dev", "other"] as const) {
      expect(after[side].account).toEqual(before[side].account);
      expect(after[side].keys).toEqual(before[side].keys);
      expect(after[side].instances).toEqual(before[side].instances);
      for (const [id, log] of Object.entries(before[side].events)) {
        // Kept as they were; newer ones only tell of the hosts going and coming, and of ports answering.
        const added = newerPart(log, after[side].events[id]!).map((e) => e.message);
        expect(added.every((m) => /^Host went offline|^Host is back online|^port \d+ /.test(m)), JSON.stringify(added)).toBe(true);
      }
    }
    // Nothing runs in the other account: its balance and ledger are exactly as they were.
    expect(after.other.balance).toBe(before.other.balance);
    expect(after.other.ledger).toEqual(before.other.ledger);
    // The dev account's ledger goes on from where it was, with charges of its running instance only:
    // every stored entry keeps its id and place, and only that instance's open hour row has grown.
    const [storedBefore, storedAfter] = [before.dev.ledger, after.dev.ledger].map((ledger) => ledger.filter((entry) => !entry.pending)) as [LedgerEntry[], LedgerEntry[]];
    const kept = storedAfter.slice(storedAfter.length - storedBefore.length);
    expect(kept.map((entry) => entry.id)).toEqual(storedBefore.map((entry) => entry.id));
    const notRunning = (ledger: LedgerEntry[]) => ledger.filter((entry) => entry.instance_id !== running.id);
    expect(notRunning(kept)).toEqual(notRunning(storedBefore));
    const charged = storedAfter.slice(0, storedAfter.length - storedBefore.length);
    expect(charged.every((entry) => entry.kind === "charge" && entry.instance_id === running.id), JSON.stringify(charged)).toBe(true);

    // The session and the password still work; the revoked key is still refused.
    const me = await fetch(`${second.baseUrl}/v1/me`, { headers: { cookie: session } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { account: unknown }).account).toEqual(before.dev.account);
    await signIn(second);
    // Running serves again; stopped stays stopped, refused by the proxy.
    await poll(() => health(second!, running, first.key), (status) => status === 200);
    for (const [instance, key] of [[stopped, first.key], [otherStopped, otherKey]] as const) {
      expect((await second.api<Shown>("GET", `/v1/instances/${instance.id}`, undefined, key)).body.status).toBe("stopped");
      expect(await health(second, instance, key)).toBe(409);
    }
  }, 60_000);
});
