// Stripe's webhook deliveries to the Worker in workerd, signed with the secret the workerd tests
// configure, and Checkout Sessions recorded as POST /v1/billing/checkout records them (payments are
// off in workerd: no Stripe API to create them with). Workerd only.
import { env } from "cloudflare:workers";
import { accountOf } from "../../../core/env.ts";
import { MICROS_PER_CENT } from "../../../durable-objects/contracts/payments.ts";
import { call } from "./api-client.ts";
import { checkoutSession, signature } from "../stripe/stripe-events.ts";

export const WEBHOOK_SECRET = "whsec_test_workerd";

/** Posts `payload` to the webhook, signed (or with `sig`); the answer's status and JSON body. */
export async function deliver(payload: string, sig?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await call("POST", "/v1/billing/stripe/webhook", {
    rawBody: payload, headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": sig ?? (await signature(payload, WEBHOOK_SECRET)) },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A Checkout Session of `cents` created for `accountId` (recorded by its account), as its events carry it. */
export async function createdSession(id: string, accountId: string, cents: number, paymentStatus = "paid"): Promise<Record<string, unknown>> {
  const recorded = await accountOf(env, accountId).recordCheckout({ session_id: id, amount_micros: cents * MICROS_PER_CENT });
  if (!recorded.ok) throw new Error(`recording ${id}: ${recorded.message}`);
  return checkoutSession(id, accountId, cents, paymentStatus);
}
