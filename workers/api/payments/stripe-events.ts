// Which of Stripe's events move money, and by how much: read from the verified event itself (the
// session's amount_total, never its metadata's), in micro-dollars. The account is the session's
// client_reference_id, and a refunded charge's metadata (Checkout copies the session's
// payment_intent_data.metadata onto the PaymentIntent, and Stripe onto its charges).
import type Stripe from "stripe";
import { MICROS_PER_CENT, type PaymentEvent } from "../../../durable-objects/contracts/payments.ts";

export interface AccountPayment {
  accountId: string;
  event: PaymentEvent;
}

/** The payment an event reports, or null for every other event (answered 200 and ignored). */
export function paymentOf(event: Stripe.Event): AccountPayment | null {
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      const session = event.data.object;
      if (session.payment_status !== "paid" || session.currency !== "usd" || session.amount_total === null || !session.client_reference_id) return null;
      return { accountId: session.client_reference_id, event: { kind: "paid", session_id: session.id, amount_micros: session.amount_total * MICROS_PER_CENT } };
    }
    case "charge.refunded": {
      const charge = event.data.object;
      const accountId = charge.metadata?.account_id;
      if (!accountId || charge.currency !== "usd") return null;
      return { accountId, event: { kind: "refunded", charge_id: charge.id, refunded_micros: charge.amount_refunded * MICROS_PER_CENT } };
    }
    default:
      return null;
  }
}
