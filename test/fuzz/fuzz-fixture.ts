// What the fuzz test's valid requests stand on: an account with a key, a session and a balance, two
// connected hosts, a running instance whose proxy answers, and things it may safely break (a victim
// instance, a victim account, spare keys). Credentials heal themselves: when a request ends the
// session or revokes the key, the next request gets a fresh one.
import { admin, callJson, seedGpuModels } from "../support/workerd/api-client.ts";
import { FakeAgent } from "../support/workerd/fake-agent.ts";
import { until } from "../support/workerd/poll.ts";
import { signIn, signUp } from "../support/workerd/session-client.ts";

export const FUZZ_EMAIL = "fuzz@example.com";
export const FUZZ_PASSWORD = "fuzz password, long enough";
/** The GPU model valid launches ask for (the main host has it); the victim instance runs on another. */
const LAUNCH_GPU = "h100-80gb";
const VICTIM_GPU = "a100-80gb";

/**
 * Bodies the service accepts, by the name of their schema in the document: most valid requests send
 * one of these (schemas cannot say which GPU model is priced or which email exists).
 */
export const VALID_BODIES: Readonly<Record<string, readonly unknown[]>> = {
  LaunchRequest: [{ gpu_model: LAUNCH_GPU, gpu_count: 1, template: "pytorch" }, { gpu_model: LAUNCH_GPU, gpu_count: 1, template: "pytorch", label: "fuzz", disk_gb: 20, env: { A: "1" } }],
  Credentials: [{ email: FUZZ_EMAIL, password: FUZZ_PASSWORD }],
  PasswordChange: [{ current_password: FUZZ_PASSWORD, new_password: FUZZ_PASSWORD }],
  // https to a public name: the only kind of receiver a service not on loopback sends to.
  CreateWebhook: [{ url: "https://hooks.example.com/gpu" }, { url: "https://hooks.example.com/gpu", events: ["instance.status_changed"], description: "fuzz" }],
};

/**
 * Fields that always take this value: a successful password change keeps the fixture's password, and
 * the fixture's account keeps no budget (one its month's spend had reached would refuse every launch
 * and start after it, and with `stop` stop the instances the other operations need).
 */
export const FIXED_FIELDS: Readonly<Record<string, unknown>> = { new_password: FUZZ_PASSWORD, monthly_budget_micros: null };

/** Marks a response whose body came from the instance (the fake upstream), not from the service. */
export const UPSTREAM_HEADER = "x-fuzz-upstream";

export interface FuzzFixture {
  accountId: string;
  key: string;
  session: string;
  /** The running instance: read, proxied to and renamed, never stopped or destroyed by the fuzz. */
  instanceId: string;
  instanceToken: string;
  /** An instance valid stop, start and destroy requests act on. */
  victimInstanceId: string;
  /** An account valid operator requests act on (credits, keys). */
  victimAccountId: string;
}

export async function setUpFixture(): Promise<FuzzFixture> {
  await seedGpuModels();
  const host = await FakeAgent.register("fuzz-main");
  await host.connect([LAUNCH_GPU, LAUNCH_GPU, LAUNCH_GPU, LAUNCH_GPU]);
  answerAsUpstream(host);
  const victimHost = await FakeAgent.register("fuzz-victims");
  await victimHost.connect([VICTIM_GPU, VICTIM_GPU]);

  const { id: accountId, session } = await signUp(FUZZ_EMAIL, FUZZ_PASSWORD);
  await expectStatus(admin("POST", `/accounts/${accountId}/credits`, { amount_micros: 1_000_000_000, note: "fuzz" }), 200);
  const key = await newKey(accountId);
  const instance = await runningInstance(host, key, LAUNCH_GPU);
  const victim = await runningInstance(victimHost, key, VICTIM_GPU);
  const victimAccount = await expectStatus(admin("POST", "/accounts", { balance_micros: 1_000_000 }), 201);
  return {
    accountId, key, session, instanceId: instance.id, instanceToken: instance.token, victimInstanceId: victim.id,
    victimAccountId: victimAccount.id as string,
  };
}

/** A new API key of `accountId`, made through the operator API (revoking the oldest when it holds 50). */
export async function newKey(accountId: string): Promise<string> {
  const created = await admin("POST", `/accounts/${accountId}/keys`, { name: "fuzz" });
  if (created.status === 201) return created.body.key as string;
  await expectStatus(admin("DELETE", `/accounts/${accountId}/keys/${await spareKeyId(accountId, null)}`), 204);
  return (await expectStatus(admin("POST", `/accounts/${accountId}/keys`, { name: "fuzz" }), 201)).key as string;
}

/**
 * The id of a key of `accountId` that a request may revoke: a new one, or (when the account holds
 * its 50 keys) the oldest other than `keep`.
 */
export async function spareKeyId(accountId: string, keep: string | null): Promise<string> {
  const created = await admin("POST", `/accounts/${accountId}/keys`, {});
  if (created.status === 201) return created.body.id as string;
  const { items } = await expectStatus(admin("GET", `/accounts/${accountId}/keys`), 200) as { items: { id: string; prefix: string }[] };
  return items.find((item) => keep === null || !keep.startsWith(item.prefix))!.id;
}

/**
 * An instance for a request that changes it: the victim, relaunched once destroyed, stopped for a
 * request that starts it and started for any other (start needs a stopped instance, stop a live one).
 */
export async function victimInstance(fixture: FuzzFixture, forStart: boolean): Promise<string> {
  const { status, body } = await callJson<{ status: string }>("GET", `/v1/instances/${fixture.victimInstanceId}`, { key: fixture.key });
  let current = body.status;
  if (status !== 200 || current === "destroyed") {
    const launched = await expectStatus(callJson("POST", "/v1/instances", { key: fixture.key, body: { gpu_model: VICTIM_GPU, gpu_count: 1, template: "pytorch" } }), 201);
    fixture.victimInstanceId = launched.id as string;
    current = launched.status as string;
  }
  const stopped = current === "stopped" || current === "error";
  if (forStart !== stopped) await expectStatus(callJson("POST", `/v1/instances/${fixture.victimInstanceId}/${forStart ? "stop" : "start"}`, { key: fixture.key }), 204);
  return fixture.victimInstanceId;
}

export async function renewSession(fixture: FuzzFixture): Promise<void> {
  fixture.session = await signIn(FUZZ_EMAIL, FUZZ_PASSWORD);
}

export async function renewKey(fixture: FuzzFixture): Promise<void> {
  fixture.key = await newKey(fixture.accountId);
}

async function runningInstance(host: FakeAgent, key: string, gpu: string): Promise<{ id: string; token: string }> {
  const launched = await expectStatus(callJson("POST", "/v1/instances", { key, body: { gpu_model: gpu, gpu_count: 1, template: "pytorch" } }), 201);
  const id = launched.id as string;
  await host.waitForCommand(id, "create");
  host.report(id, "running");
  await until(() => callJson<{ status: string }>("GET", `/v1/instances/${id}`, { key }), (r) => r.body.status === "running", `${id} running`);
  return { id, token: launched.token as string };
}

/**
 * Makes `host` answer every proxied request at once, as a server inside the instance would: 200 with
 * a marker header, and every WebSocket accepted; and every log request, as an agent with no lines.
 */
function answerAsUpstream(host: FakeAgent): void {
  host.onMessage((message) => {
    if (message.type === "http_request") {
      host.send({ type: "http_response", stream: message.stream, status: 200, headers: [["content-type", "text/plain"], [UPSTREAM_HEADER, "1"]] });
      host.send({ type: "end", stream: message.stream });
    } else if (message.type === "ws_open") {
      host.send({ type: "ws_accepted", stream: message.stream, protocol: "" });
    } else if (message.type === "logs_open") {
      // As the agent answers a log request: the head, the lines (none here), the end.
      const type = message.format === "events" ? "text/event-stream" : "text/plain; charset=utf-8";
      host.send({ type: "http_response", stream: message.stream, status: 200, headers: [["content-type", type]] });
      host.send({ type: "end", stream: message.stream });
    }
  });
}

async function expectStatus(pending: Promise<{ status: number; body: Record<string, unknown> }>, status: number): Promise<Record<string, unknown>> {
  const { status: actual, body } = await pending;
  if (actual !== status) throw new Error(`fuzz fixture: expected ${status}, got ${actual} ${JSON.stringify(body)}`);
  return body;
}
