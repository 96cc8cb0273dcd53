// Stripe's disputes through the real Worker, AccountDO and PaymentDO: a dispute names only its charge
// and PaymentIntent, so it reaches the account the PaymentIntent's Checkout Session paid. It takes the
// disputed amount once (ledger kind `dispute`), a won one gives it back once, a lost one takes nothing
// more, in whatever order and however often Stripe delivers them; each movement is in the audit log once.
import { Validator, type Schema } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import openapi from "../../../openapi.json";
import { callJson, newAccount } from "../../../test/support/workerd/api-client.ts";
import { dispute, stripeEvent } from "../../../test/support/stripe/stripe-events.ts";
import { createdSession, deliver } from "../../../test/support/workerd/stripe-webhook.ts";
import { auditLedger } from "../../../test/support/workerd/ledger-audit.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningInstance } from "../../../test/support/workerd/proxy-host.ts";

/** The ledger page as the API documents it: its `kind` names every kind the ledger holds. */
const ledgerPage = new Validator(openapi.components.schemas.LedgerPage as Schema, "2020-12");

const balanceOf = async (key: string) => (await callJson<{ balance_micros: number }>("GET", "/v1/me", { key })).body.balance_micros;
const disputeRows = async (key: string) =>
  (await callJson<{ items: { kind: string; amount_micros: number; note: string }[] }>("GET", "/v1/billing/ledger", { key })).body.items
    .filter((e) => e.kind === "dispute").map((e) => [e.amount_micros, e.note]);

/** An account that paid `cents` through a Checkout Session of this service: its key and the session's PaymentIntent. */
async function paidAccount(sessionId: string, cents: number, openingMicros = 0): Promise<{ id: string; key: string; paymentIntent: string }> {
  const { id, key } = await newAccount(openingMicros);
  const session = await createdSession(sessionId, id, cents);
  expect((await deliver(stripeEvent("checkout.session.completed", session))).status).toBe(200);
  return { id, key, paymentIntent: session.payment_intent as string };
}

describe("Stripe's disputes", () => {
  it("take the disputed amount once however often the dispute is delivered, and give it back once when it is won", async () => {
    const { id, key, paymentIntent } = await paidAccount("cs_test_disputed", 5000);
    const opened = stripeEvent("charge.dispute.created", dispute("dp_test_won", "ch_test_won", paymentIntent, 3000));
    expect(await deliver(opened)).toEqual({ status: 200, body: { received: true } });
    await Promise.all([deliver(opened), deliver(stripeEvent("charge.dispute.created", dispute("dp_test_won", "ch_test_won", paymentIntent, 3000)))]);
    expect(await balanceOf(key)).toBe(20_000_000);
    const won = dispute("dp_test_won", "ch_test_won", paymentIntent, 3000, "won");
    await deliver(stripeEvent("charge.dispute.closed", won));
    await deliver(stripeEvent("charge.dispute.closed", won));
    expect(await balanceOf(key)).toBe(50_000_000);
    expect(await disputeRows(key)).toEqual([
      [30_000_000, "Stripe dispute dp_test_won of ch_test_won won"], [-30_000_000, "Stripe dispute dp_test_won of ch_test_won"],
    ]);
    expect(await auditLedger(id)).toMatchObject({ balance_micros: 50_000_000, ledger_sum_micros: 50_000_000 });
    expect(ledgerPage.validate((await callJson("GET", "/v1/billing/ledger", { key })).body).errors).toEqual([]);
    const audited = await callJson<{ items: { action: string; actor: { type: string }; target: unknown; detail: string }[] }>("GET", "/v1/audit-log?action=payment", { key });
    expect(audited.body.items.filter((entry) => entry.action.startsWith("payment.dispute"))).toEqual([
      expect.objectContaining({ action: "payment.dispute_won", actor: expect.objectContaining({ type: "system" }), target: { type: "payment", id: "ch_test_won" }, detail: "30000000 micros credited back: dispute dp_test_won" }),
      expect.objectContaining({ action: "payment.dispute", actor: expect.objectContaining({ type: "system" }), target: { type: "payment", id: "ch_test_won" }, detail: "30000000 micros debited: dispute dp_test_won" }),
    ]);
  });

  it("take nothing more when the dispute is lost; a lost one whose opening never arrived is taken once", async () => {
    const { key, paymentIntent } = await paidAccount("cs_test_lost", 5000);
    await deliver(stripeEvent("charge.dispute.created", dispute("dp_test_lost", "ch_test_lost", paymentIntent, 5000)));
    await deliver(stripeEvent("charge.dispute.closed", dispute("dp_test_lost", "ch_test_lost", paymentIntent, 5000, "lost")));
    expect(await balanceOf(key)).toBe(0);
    await deliver(stripeEvent("charge.dispute.closed", dispute("dp_test_lost_only", "ch_test_lost", paymentIntent, 1000, "lost")));
    await deliver(stripeEvent("charge.dispute.created", dispute("dp_test_lost_only", "ch_test_lost", paymentIntent, 1000)));
    expect(await balanceOf(key)).toBe(-10_000_000);
  });

  it("move nothing for a dispute won before its opening arrives, nor for an inquiry closed without a chargeback after it", async () => {
    const { key, paymentIntent } = await paidAccount("cs_test_early_win", 2000);
    await deliver(stripeEvent("charge.dispute.closed", dispute("dp_test_early", "ch_test_early", paymentIntent, 2000, "won")));
    await deliver(stripeEvent("charge.dispute.created", dispute("dp_test_early", "ch_test_early", paymentIntent, 2000)));
    await deliver(stripeEvent("charge.dispute.created", dispute("dp_test_inquiry", "ch_test_early", paymentIntent, 2000, "warning_needs_response")));
    await deliver(stripeEvent("charge.dispute.closed", dispute("dp_test_inquiry", "ch_test_early", paymentIntent, 2000, "warning_closed")));
    expect(await balanceOf(key)).toBe(20_000_000);
    expect(await disputeRows(key)).toEqual([
      [20_000_000, "Stripe dispute dp_test_inquiry of ch_test_early won"], [-20_000_000, "Stripe dispute dp_test_inquiry of ch_test_early"],
    ]);
  });

  it("change nothing for a payment this service did not take: 200, so Stripe stops sending it", async () => {
    const { key } = await paidAccount("cs_test_bystander", 1000);
    const stranger = await deliver(stripeEvent("charge.dispute.created", dispute("dp_test_foreign", "ch_test_foreign", "pi_test_not_ours", 1000)));
    expect(stranger).toEqual({ status: 200, body: { received: true } });
    expect(await balanceOf(key)).toBe(10_000_000);
    expect(await disputeRows(key)).toEqual([]);
  });

  it("stop what runs when a dispute uses the balance up, as when funds run out", async () => {
    const agent = await FakeAgent.online(`dispute-host-${crypto.randomUUID()}`, ["h100-80gb"]);
    const { key, paymentIntent } = await paidAccount("cs_test_used_up", 1000);
    const instance = await runningInstance(agent, key);
    await deliver(stripeEvent("charge.dispute.created", dispute("dp_test_used_up", "ch_test_used_up", paymentIntent, 1000)));
    expect(await balanceOf(key)).toBeLessThanOrEqual(0);
    expect((await callJson<{ desired_state: string }>("GET", `/v1/instances/${instance.id}`, { key })).body.desired_state).toBe("stopped");
    agent.disconnect();
  });
});
