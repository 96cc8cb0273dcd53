// Stripe's early fraud warning through the real Worker, AccountDO and PaymentDO: the account its
// payment went to is frozen, its launches and starts refused with 403 account_frozen (what runs goes
// on), until the operator clears it with PATCH /admin/v1/accounts/{id} {"frozen": false}; the
// operator's view says whether and why. The same warning delivered again freezes nothing.
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { earlyFraudWarning, stripeEvent } from "../../../test/support/stripe/stripe-events.ts";
import { createdSession, deliver } from "../../../test/support/workerd/stripe-webhook.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";

const FROZEN = { error: "account_frozen", message: expect.stringContaining("frozen") };
const LAUNCH = { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" };

let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online(`fraud-host-${crypto.randomUUID()}`, ["rtx4090", "rtx4090", "rtx4090", "rtx4090"]);
});

/** An account with $100 that paid $20 through a Checkout Session of this service: its id, key and the session's PaymentIntent. */
async function paidAccount(sessionId: string): Promise<{ id: string; key: string; paymentIntent: string }> {
  const { id, key } = await newAccount();
  const session = await createdSession(sessionId, id, 2000);
  expect((await deliver(stripeEvent("checkout.session.completed", session))).status).toBe(200);
  return { id, key, paymentIntent: session.payment_intent as string };
}

const launch = (key: string) => callJson("POST", "/v1/instances", { key, body: LAUNCH });
const statusOf = async (key: string, id: string) => (await callJson<{ status: string }>("GET", `/v1/instances/${id}`, { key })).body.status;

describe("Stripe's early fraud warning", () => {
  it("freezes launches and starts with 403 account_frozen until the operator clears it; what runs goes on", async () => {
    const { id, key, paymentIntent } = await paidAccount("cs_test_fraud");
    const running = await runningOn(agent, key);
    const stopped = await runningOn(agent, key);
    expect((await call("POST", `/v1/instances/${stopped}/stop`, { key })).status).toBe(204);
    agent.report(stopped, "stopped");

    const warning = stripeEvent("radar.early_fraud_warning.created", earlyFraudWarning("issfr_test_1", "ch_test_fraud", paymentIntent));
    expect(await deliver(warning)).toEqual({ status: 200, body: { received: true } });
    expect(await launch(key)).toMatchObject({ status: 403, body: FROZEN });
    expect(await callJson("POST", `/v1/instances/${stopped}/start`, { key })).toMatchObject({ status: 403, body: FROZEN });
    expect(await statusOf(key, running)).toBe("running");
    expect(await statusOf(key, stopped)).toBe("stopped");
    expect((await admin("GET", `/accounts/${id}`)).body).toMatchObject({
      id, frozen: true, frozen_reason: "Stripe early fraud warning issfr_test_1 (made_with_stolen_card) on charge ch_test_fraud",
    });

    expect(await admin("PATCH", `/accounts/${id}`, { frozen: false })).toMatchObject({ status: 200, body: { id, frozen: false, frozen_reason: null, max_gpus: 16 } });
    expect((await call("POST", `/v1/instances/${stopped}/start`, { key })).status).toBe(204);
    expect((await launch(key)).status).toBe(201);

    // Stripe delivers an event more than once: the warning the operator cleared does not freeze the account again.
    expect(await deliver(warning)).toEqual({ status: 200, body: { received: true } });
    expect((await admin("GET", `/accounts/${id}`)).body).toMatchObject({ frozen: false });
  });

  it("freezes nothing for a payment this service did not take: 200, so Stripe stops sending it", async () => {
    const { id, key } = await paidAccount("cs_test_fraud_bystander");
    const stranger = await deliver(stripeEvent("radar.early_fraud_warning.created", earlyFraudWarning("issfr_test_2", "ch_test_other", "pi_test_not_ours")));
    expect(stranger).toEqual({ status: 200, body: { received: true } });
    expect((await admin("GET", `/accounts/${id}`)).body).toMatchObject({ frozen: false, frozen_reason: null });
    expect((await launch(key)).status).toBe(201);
  });
});

describe("the operator's freeze", () => {
  it("is set and cleared by PATCH /admin/v1/accounts/{id}, alone or with max_gpus; the account's view shows it", async () => {
    const { id, key } = await newAccount();
    expect((await admin("GET", `/accounts/${id}`)).body).toMatchObject({ id, balance_micros: 100_000_000, max_gpus: 16, frozen: false, frozen_reason: null });
    expect((await admin("PATCH", `/accounts/${id}`, { frozen: true, max_gpus: 4 })).body).toMatchObject({ max_gpus: 4, frozen: true, frozen_reason: "frozen by the operator" });
    expect(await launch(key)).toMatchObject({ status: 403, body: FROZEN });
    expect((await admin("PATCH", `/accounts/${id}`, { max_gpus: null })).body).toMatchObject({ max_gpus: 16, frozen: true });
    expect((await admin("PATCH", `/accounts/${id}`, { frozen: false })).body).toMatchObject({ max_gpus: 16, frozen: false });
  });

  it("refuses a body that changes nothing or a frozen that is not a boolean with 400 naming the field, and an unknown account with 404", async () => {
    const { id } = await newAccount();
    expect(await admin("PATCH", `/accounts/${id}`, {})).toMatchObject({ status: 400, body: { error: "invalid", message: "body: must set max_gpus, frozen or both" } });
    expect(await admin("PATCH", `/accounts/${id}`, { frozen: "no" })).toMatchObject({ status: 400, body: { error: "invalid", message: "frozen: must be true or false" } });
    expect(await admin("PATCH", `/accounts/${id}`, { frozen: false, thawed: true })).toMatchObject({ status: 400, body: { error: "invalid", message: "thawed: unknown field" } });
    expect((await admin("GET", `/accounts/${id}`)).body).toMatchObject({ frozen: false });
    expect(await admin("GET", "/accounts/acc-zzzzzzzzzzzzzzzz")).toMatchObject({ status: 404, body: { error: "not_found" } });
    expect(await admin("PATCH", "/accounts/acc-zzzzzzzzzzzzzzzz", { frozen: false })).toMatchObject({ status: 404, body: { error: "not_found" } });
  });
});
