// Stripe events as Stripe sends them to a webhook, signed with the `stripe` package's own test-header
// helper, so the service's real verification runs on them. Runs in workerd and in Node.
import Stripe from "stripe";

let seq = 0;

/** An event of `type` about `object`, as Stripe's webhook body has it. */
export function stripeEvent(type: string, object: Record<string, unknown>): string {
  seq += 1;
  return JSON.stringify({
    id: `evt_test_${Date.now()}_${seq}`, object: "event", api_version: "2025-11-17.clover", created: Math.floor(Date.now() / 1000),
    livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type, data: { object },
  });
}

/** A Checkout Session of `accountId` for `cents`, as checkout.session.* events carry it. */
export function checkoutSession(id: string, accountId: string, cents: number, paymentStatus = "paid"): Record<string, unknown> {
  return {
    id, object: "checkout.session", mode: "payment", currency: "usd", amount_total: cents, amount_subtotal: cents, payment_status: paymentStatus,
    status: paymentStatus === "paid" ? "complete" : "open", client_reference_id: accountId, metadata: { account_id: accountId },
    payment_intent: `pi_${id.slice(3)}`, created: Math.floor(Date.now() / 1000),
  };
}

/** A charge of `accountId` with `refundedCents` refunded so far, as charge.refunded carries it. */
export function refundedCharge(id: string, accountId: string, cents: number, refundedCents: number): Record<string, unknown> {
  return {
    id, object: "charge", amount: cents, amount_refunded: refundedCents, currency: "usd", refunded: refundedCents === cents,
    metadata: { account_id: accountId }, payment_intent: `pi_${id.slice(3)}`,
  };
}

/** A dispute of `cents` on charge `chargeId` of PaymentIntent `paymentIntent`, as charge.dispute.* events carry it. */
export function dispute(id: string, chargeId: string, paymentIntent: string, cents: number, status = "needs_response"): Record<string, unknown> {
  return {
    id, object: "dispute", amount: cents, currency: "usd", charge: chargeId, payment_intent: paymentIntent, status, reason: "fraudulent",
    is_charge_refundable: false, livemode: false, metadata: {}, created: Math.floor(Date.now() / 1000),
  };
}

/** Radar's early fraud warning on charge `chargeId` of PaymentIntent `paymentIntent`, as radar.early_fraud_warning.created carries it. */
export function earlyFraudWarning(id: string, chargeId: string, paymentIntent: string): Record<string, unknown> {
  return {
    id, object: "radar.early_fraud_warning", actionable: true, charge: chargeId, payment_intent: paymentIntent, fraud_type: "made_with_stolen_card",
    livemode: false, created: Math.floor(Date.now() / 1000),
  };
}

/** The Stripe-Signature header for `payload`, signed at `timestampS` (now by default). */
export function signature(payload: string, secret: string, timestampS = Math.floor(Date.now() / 1000)): Promise<string> {
  return Stripe.webhooks.generateTestHeaderStringAsync({ payload, secret, timestamp: timestampS, cryptoProvider: Stripe.createSubtleCryptoProvider() });
}
