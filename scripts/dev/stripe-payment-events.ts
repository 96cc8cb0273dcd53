// What befalls a payment after Checkout, played by the Stripe stand-in: its payer disputes it (and the
// dispute is won or lost), or Radar warns it was fraudulent. Each sends the event Stripe sends, with
// the objects as Stripe's API reference shows them; the stand-in's charge of a paid session is
// `ch_test_...` beside its `pi_test_...`. In Stripe's test mode the same comes from special card
// numbers; here from a call, or a POST to the stand-in (README, "Billing").
import { randomBytes } from "node:crypto";
import type { SendEvent } from "./stripe-webhook-sender.ts";

/** The paid session a dispute or warning is about: its PaymentIntent and amount. */
export interface PaidSession {
  id: string;
  payment_intent: string | null;
  amount_total: number;
}

export interface StandInDispute {
  id: string;
  object: "dispute";
  amount: number;
  currency: "usd";
  charge: string;
  payment_intent: string;
  status: "needs_response" | "won" | "lost";
  reason: "fraudulent";
  is_charge_refundable: false;
  metadata: Record<string, string>;
  livemode: false;
  created: number;
}

export interface PaymentEvents {
  disputes: Map<string, StandInDispute>;
  /** The payer disputes the whole payment: charge.dispute.created. */
  dispute(session: PaidSession): Promise<{ dispute: StandInDispute; status: number }>;
  /** The dispute closes: charge.dispute.closed with `status`. */
  closeDispute(disputeId: string, status: "won" | "lost"): Promise<{ dispute: StandInDispute; status: number }>;
  /** Radar's early fraud warning on the payment's charge: radar.early_fraud_warning.created. */
  warnOfFraud(session: PaidSession): Promise<{ warning: Record<string, unknown>; status: number }>;
}

export function paymentEvents(send: SendEvent): PaymentEvents {
  const disputes = new Map<string, StandInDispute>();
  const paid = (session: PaidSession) => {
    if (!session.payment_intent) throw new Error(`session ${session.id} is not paid`);
    return { payment_intent: session.payment_intent, charge: `ch_test_${session.payment_intent.slice("pi_test_".length)}` };
  };
  return {
    disputes,
    async dispute(session) {
      const dispute: StandInDispute = {
        id: `dp_test_${randomBytes(12).toString("hex")}`, object: "dispute", amount: session.amount_total, currency: "usd", ...paid(session),
        status: "needs_response", reason: "fraudulent", is_charge_refundable: false, metadata: {}, livemode: false, created: Math.floor(Date.now() / 1000),
      };
      disputes.set(dispute.id, dispute);
      return { dispute, status: await send("charge.dispute.created", dispute) };
    },
    async closeDispute(disputeId, status) {
      const dispute = disputes.get(disputeId);
      if (!dispute) throw new Error(`no dispute ${disputeId}`);
      dispute.status = status;
      return { dispute, status: await send("charge.dispute.closed", dispute) };
    },
    async warnOfFraud(session) {
      const warning = {
        id: `issfr_test_${randomBytes(12).toString("hex")}`, object: "radar.early_fraud_warning", actionable: true, ...paid(session),
        fraud_type: "made_with_stolen_card", livemode: false, created: Math.floor(Date.now() / 1000),
      };
      return { warning, status: await send("radar.early_fraud_warning.created", warning) };
    },
  };
}
