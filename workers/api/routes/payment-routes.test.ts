// Stripe's webhook through the real Worker and AccountDO: every event signed with the stripe
// package's test helper and verified by the service's real code. A payment credits once however
// often and in whatever order it arrives, and only for a session this service created; a refund
// debits once; nothing else changes anything. (Disputes and fraud warnings: stripe-disputes.test.ts,
// stripe-fraud-warning.test.ts.)
// (The checkout round trip against a stand-in of Stripe's API is end to end: test/e2e/payments.test.ts.)
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { checkoutSession, refundedCharge, signature, stripeEvent } from "../../../test/support/stripe/stripe-events.ts";
import { createdSession, deliver, WEBHOOK_SECRET as SECRET } from "../../../test/support/workerd/stripe-webhook.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningInstance } from "../../../test/support/workerd/proxy-host.ts";

const balanceOf = async (key: string) => (await callJson<{ balance_micros: number }>("GET", "/v1/me", { key })).body.balance_micros;
const ledgerOf = async (key: string) =>
  (await callJson<{ items: { kind: string; amount_micros: number; note: string }[] }>("GET", "/v1/billing/ledger", { key })).body.items;

describe("Stripe's webhook: payments", () => {
  it("credits a paid session's amount once, however often, in whatever order and however concurrently it is delivered", async () => {
    const { id, key } = await newAccount(0);
    const session = await createdSession("cs_test_once", id, 2500);
    const completed = stripeEvent("checkout.session.completed", session);
    expect(await deliver(completed)).toEqual({ status: 200, body: { received: true } });
    await Promise.all([deliver(completed), deliver(stripeEvent("checkout.session.completed", session)), deliver(stripeEvent("checkout.session.async_payment_succeeded", session))]);
    expect(await balanceOf(key)).toBe(25_000_000);
    expect((await ledgerOf(key)).filter((e) => e.kind === "payment")).toEqual([
      expect.objectContaining({ kind: "payment", amount_micros: 25_000_000, note: "Stripe Checkout cs_test_once" }),
    ]);
  });

  it("credits an async payment that succeeds later, and nothing for a session not paid yet", async () => {
    const { id, key } = await newAccount(0);
    expect((await deliver(stripeEvent("checkout.session.completed", await createdSession("cs_test_async", id, 1000, "unpaid")))).status).toBe(200);
    expect(await balanceOf(key)).toBe(0);
    await deliver(stripeEvent("checkout.session.async_payment_succeeded", checkoutSession("cs_test_async", id, 1000)));
    expect(await balanceOf(key)).toBe(10_000_000);
  });

  it("changes nothing for a wrong, stale, missing or tampered signature: 400 bad_request", async () => {
    const { id, key } = await newAccount(0);
    const payload = stripeEvent("checkout.session.completed", await createdSession("cs_test_forged", id, 100_000));
    const wrong = await deliver(payload, await signature(payload, "whsec_someone_else"));
    const stale = await deliver(payload, await signature(payload, SECRET, Math.floor(Date.now() / 1000) - 600));
    const tampered = await deliver(payload.replace("100000", "999999"), await signature(payload, SECRET));
    const missing = await call("POST", "/v1/billing/stripe/webhook", { rawBody: payload, headers: { "content-type": "application/json" } });
    for (const refused of [wrong, stale, tampered]) expect(refused).toMatchObject({ status: 400, body: { error: "bad_request", message: expect.stringContaining("Stripe-Signature") } });
    expect(missing.status).toBe(400);
    expect(await balanceOf(key)).toBe(0);
  });

  it("acknowledges other events, a session of no account here, and one in another currency, and changes nothing", async () => {
    const { id, key } = await newAccount(0);
    expect((await deliver(stripeEvent("customer.created", { id: "cus_x", object: "customer" }))).status).toBe(200);
    expect((await deliver(stripeEvent("checkout.session.completed", checkoutSession("cs_test_nobody", "acc-nobodyhere0000", 1000)))).status).toBe(200);
    expect((await deliver(stripeEvent("checkout.session.completed", { ...(await createdSession("cs_test_eur", id, 1000)), currency: "eur" }))).status).toBe(200);
    expect(await balanceOf(key)).toBe(0);
  });

  it("credits nothing for a Checkout Session this service did not create, though Stripe signed it and it names the account: 200, no ledger row", async () => {
    const { id, key } = await newAccount(0);
    await createdSession("cs_test_ours", id, 500);
    const foreign = await deliver(stripeEvent("checkout.session.completed", checkoutSession("cs_test_payment_link", id, 100_000)));
    expect(foreign).toEqual({ status: 200, body: { received: true } });
    expect(await balanceOf(key)).toBe(0);
    expect(await ledgerOf(key)).toEqual([]);
  });

  it("credits, for an account from before sessions were recorded, a session Stripe created before the recording began, and no later one", async () => {
    const { id, key } = await newAccount(0);
    const nowS = Math.floor(Date.now() / 1000);
    await runInDurableObject(env.ACCOUNTS.getByName(id), (_, state) => void state.storage.sql.exec("UPDATE account SET checkouts_recorded_from_s = ?", nowS));
    await deliver(stripeEvent("checkout.session.completed", { ...checkoutSession("cs_test_before", id, 1000), created: nowS - 3600 }));
    await deliver(stripeEvent("checkout.session.completed", { ...checkoutSession("cs_test_after", id, 2000), created: nowS }));
    expect((await ledgerOf(key)).map((e) => e.note)).toEqual(["Stripe Checkout cs_test_before"]);
  });

  it("needs no key: Stripe signs, and the callers' routes beside it still need theirs", async () => {
    expect((await call("GET", "/v1/billing/config")).status).toBe(401);
    expect((await call("POST", "/v1/billing/stripe/webhook", { rawBody: "{}", headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=x" } })).status).toBe(400);
  });
});

describe("Stripe's webhook: the account's own webhooks", () => {
  it("hands the account's endpoints payment.succeeded once per session and payment.refunded once per refund", async () => {
    const { id, key } = await newAccount(0);
    const created = await callJson<{ id: string }>("POST", "/v1/webhooks", { key, body: { url: "https://hooks.example.com/pay", events: ["payment.succeeded", "payment.refunded"] } });
    expect(created.status).toBe(201);
    const session = await createdSession("cs_test_hooked", id, 1500);
    await deliver(stripeEvent("checkout.session.completed", session));
    await deliver(stripeEvent("checkout.session.completed", session));
    await deliver(stripeEvent("charge.refunded", refundedCharge("ch_test_hooked", id, 1500, 500)));
    const deliveries = await callJson<{ items: { type: string }[] }>("GET", `/v1/webhooks/${created.body.id}/deliveries`, { key });
    expect(deliveries.body.items.map((d) => d.type).sort()).toEqual(["payment.refunded", "payment.succeeded"]);
  });
});

describe("Stripe's webhook: refunds", () => {
  it("debits what was refunded once per amount: duplicates and older events change nothing, a further refund debits the difference", async () => {
    const { id, key } = await newAccount(50_000_000);
    await deliver(stripeEvent("charge.refunded", refundedCharge("ch_test_partial", id, 5000, 1000)));
    await deliver(stripeEvent("charge.refunded", refundedCharge("ch_test_partial", id, 5000, 1000)));
    expect(await balanceOf(key)).toBe(40_000_000);
    await deliver(stripeEvent("charge.refunded", refundedCharge("ch_test_partial", id, 5000, 1500)));
    await deliver(stripeEvent("charge.refunded", refundedCharge("ch_test_partial", id, 5000, 1000)));
    expect(await balanceOf(key)).toBe(35_000_000);
    expect((await ledgerOf(key)).filter((e) => e.kind === "refund").map((e) => [e.amount_micros, e.note])).toEqual([
      [-5_000_000, "Stripe refund of ch_test_partial"], [-10_000_000, "Stripe refund of ch_test_partial"],
    ]);
  });

  it("stops what runs when a refund uses the balance up, as when funds run out", async () => {
    const agent = await FakeAgent.online(`refund-host-${crypto.randomUUID()}`, ["h100-80gb"]);
    const { id, key } = await newAccount(10_000_000);
    const instance = await runningInstance(agent, key);
    await deliver(stripeEvent("charge.refunded", refundedCharge("ch_test_all", id, 2000, 2000)));
    expect(await balanceOf(key)).toBeLessThanOrEqual(0);
    const shown = await callJson<{ desired_state: string }>("GET", `/v1/instances/${instance.id}`, { key });
    expect(shown.body.desired_state).toBe("stopped");
    agent.disconnect();
  });
});

describe("checkout while payments are off", () => {
  it("says so in the config, and refuses a checkout with 409 conflict; an amount that is not whole cents is 400 first", async () => {
    const { key } = await newAccount();
    expect((await callJson("GET", "/v1/billing/config", { key })).body).toEqual({ payments_enabled: false, currency: "usd", min_micros: 5_000_000, max_micros: 1_000_000_000, funding_help: "" });
    expect(await callJson("POST", "/v1/billing/checkout", { key, body: { amount_micros: 25_000_000 } })).toMatchObject({
      status: 409, body: { error: "conflict", message: "payments are not configured on this service" },
    });
    expect(await callJson("POST", "/v1/billing/checkout", { key, body: { amount_micros: 25_000_001 } })).toMatchObject({
      status: 400, body: { error: "invalid", message: expect.stringContaining("amount_micros") },
    });
  });
});
