// Which of Stripe's events concern an account, and what they do to it: read from the verified event
// itself (a session's amount_total, never its metadata's), money in micro-dollars. The account is
// the session's client_reference_id; a refunded charge's metadata (Checkout copies the session's
// payment_intent_data.metadata onto the PaymentIntent, and Stripe onto its charges); for a dispute
// or an early fraud warning, which carry neither, the account its PaymentIntent paid (PaymentDO).
import type Stripe from "stripe";
import { MICROS_PER_CENT, type FraudWarning, type PaymentEvent } from "../../../durable-objects/contracts/payments.ts";

/** The account an event is about: named in it, or the one a PaymentIntent of a Checkout Session paid. */
export type AccountRef = { accountId: string } | { paymentIntent: string };

export type StripeFact =
  /** `paidBy`: a paid session's PaymentIntent, to remember which account it paid once the account took the payment. */
  | { account: AccountRef; payment: PaymentEvent; paidBy: string | null }
  | { account: AccountRef; warning: FraudWarning };

/** What an event does to an account, or null for every other event (answered 200 and ignored). */
export function factOf(event: Stripe.Event): StripeFact | null {
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      const session = event.data.object;
      if (session.payment_status !== "paid" || session.currency !== "usd" || session.amount_total === null || !session.client_reference_id) return null;
      return {
        account: { accountId: session.client_reference_id },
        payment: { kind: "paid", session_id: session.id, amount_micros: session.amount_total * MICROS_PER_CENT, created_s: session.created },
        paidBy: idOf(session.payment_intent),
      };
    }
    case "charge.refunded": {
      const charge = event.data.object;
      const accountId = charge.metadata?.account_id;
      if (!accountId || charge.currency !== "usd") return null;
      return { account: { accountId }, payment: { kind: "refunded", charge_id: charge.id, refunded_micros: charge.amount_refunded * MICROS_PER_CENT }, paidBy: null };
    }
    case "charge.dispute.created":
    case "charge.dispute.closed": {
      const dispute = event.data.object;
      const paymentIntent = idOf(dispute.payment_intent);
      if (!paymentIntent || dispute.currency !== "usd") return null;
      const common = { dispute_id: dispute.id, charge_id: idOf(dispute.charge)!, amount_micros: dispute.amount * MICROS_PER_CENT };
      const payment: PaymentEvent = event.type === "charge.dispute.created"
        ? { kind: "disputed", ...common }
        : { kind: "dispute_closed", ...common, won: dispute.status === "won" || dispute.status === "warning_closed" };
      return { account: { paymentIntent }, payment, paidBy: null };
    }
    case "radar.early_fraud_warning.created": {
      const warning = event.data.object;
      const paymentIntent = idOf(warning.payment_intent ?? null);
      if (!paymentIntent) return null;
      return { account: { paymentIntent }, warning: { warning_id: warning.id, charge_id: idOf(warning.charge)!, fraud_type: warning.fraud_type } };
    }
    default:
      return null;
  }
}

/** An id Stripe may have expanded into its object. */
function idOf(value: string | { id: string } | null): string | null {
  return typeof value === "string" || value === null ? value : value.id;
}
