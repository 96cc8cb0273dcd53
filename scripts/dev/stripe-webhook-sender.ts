// Sends the stand-in's events to the service's Stripe webhook as Stripe sends them: an event object
// around the changed object, signed with the `stripe` package's own test-header helper.
import { randomBytes } from "node:crypto";
import Stripe from "stripe";

/** Sends an event of `type` about `object`; the webhook's answer status. */
export type SendEvent = (type: string, object: object) => Promise<number>;

export function webhookSender(webhookUrl: () => string, webhookSecret: string): SendEvent {
  return async (type, object) => {
    const payload = JSON.stringify({
      id: `evt_test_${randomBytes(12).toString("hex")}`, object: "event", api_version: "2025-11-17.clover", created: Math.floor(Date.now() / 1000),
      livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type, data: { object },
    });
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    const answer = await fetch(webhookUrl(), { method: "POST", headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": signature }, body: payload });
    await answer.arrayBuffer();
    return answer.status;
  };
}
