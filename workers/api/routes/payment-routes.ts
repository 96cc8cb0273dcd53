// Card payments through Stripe Checkout: the config the dashboard reads, a Checkout Session to pay
// through (key, or session with the Origin rule), recorded by the account before its address is
// handed out, and Stripe's webhook, which credits the account once the payment is made (and debits
// refunds and disputes, freezes it on a fraud warning). The AccountDO applies each event once
// (account/payments.ts); this file only talks to Stripe and verifies what it sends.
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import Stripe from "stripe";
import { accountOf } from "../../../core/env.ts";
import { ApiError, unwrap } from "../../../core/errors.ts";
import { log } from "../../../core/log.ts";
import type { ApiEnv } from "../context.ts";
import { paymentBounds, stripeClient, webhookSecret } from "../payments/payment-config.ts";
import { deliverFact } from "../payments/deliver-fact.ts";
import { factOf } from "../payments/stripe-events.ts";
import { errors, json, jsonBody } from "../schemas/common.ts";
import { CheckoutRequest, CheckoutSession, PaymentConfig, WebhookReceipt } from "../schemas/payments.ts";
import { validationHook } from "../validation.ts";
import { z } from "@hono/zod-openapi";
import { callerRoute } from "./caller-route.ts";

export const STRIPE_WEBHOOK_PATH = "/v1/billing/stripe/webhook";
/** Stripe's own default: an event signed longer ago than this is refused, so a captured one cannot be replayed later. */
const SIGNATURE_TOLERANCE_S = 300;
const PAYMENTS_OFF = "payments are not configured on this service";

const configRoute = callerRoute([], {
  method: "get", path: "/billing/config", summary: "Whether card payments are on, and their bounds",
  description: "Whether this service takes card payments (it does once the operator has set up Stripe), in which currency, and the smallest and largest payment.",
  responses: { 200: json(PaymentConfig, "The payment settings") },
});

const checkoutRoute = callerRoute([400, 409, 502], {
  method: "post", path: "/billing/checkout", summary: "Add funds by card: a Stripe Checkout Session",
  description:
    "A Stripe Checkout Session for `amount_micros` (whole cents, within GET /v1/billing/config's bounds): open its `url` to pay. " +
    "The balance is credited when Stripe reports the payment (the webhook), once. An `Idempotency-Key` header is passed on to Stripe: " +
    "a retried request gets the same session. 409 conflict when payments are off; 502 upstream_unavailable when Stripe cannot be reached.",
  request: {
    body: jsonBody(CheckoutRequest),
    headers: z.object({
      "idempotency-key": z.string().min(1).max(200, "must be at most 200 characters").optional().openapi({
        param: { name: "idempotency-key", in: "header", description: "Any string chosen per payment: passed on to Stripe, so a retry gets the same Checkout Session" },
      }),
    }),
  },
  responses: { 201: json(CheckoutSession, "The session to pay through") },
});

const webhookRoute = createRoute({
  method: "post", path: "/billing/stripe/webhook", summary: "Stripe's events (for Stripe only)",
  description:
    "Stripe's events, verified by their `Stripe-Signature` (signed within 5 minutes) against STRIPE_WEBHOOK_SECRET: " +
    "`checkout.session.completed` (paid) and `checkout.session.async_payment_succeeded` credit the session's amount once, for a session " +
    "created by POST /v1/billing/checkout alone; `charge.refunded` debits what was refunded, once; `charge.dispute.created` debits the " +
    "disputed amount and `charge.dispute.closed` (won) credits it back, once each; `radar.early_fraud_warning.created` freezes the account's " +
    "launches and starts until the operator clears it. Any other event, or one about nothing of this service's, is acknowledged and changes nothing. 400 bad_request for a " +
    "missing, wrong or stale signature (nothing changes); 409 conflict when the service has no webhook secret.",
  responses: { 200: json(WebhookReceipt, "Received"), ...errors(400, 409) },
});

export const paymentRoutes = new OpenAPIHono<ApiEnv>({ defaultHook: validationHook })
  .openapi(configRoute, async (c) => {
    // Asked of the account for a key's scope (billing:read): every role may read it.
    unwrap(await accountOf(c.env, c.var.accountId).authenticate(c.var.credential));
    return c.json({ payments_enabled: stripeClient(c.env) !== null, currency: "usd" as const, ...paymentBounds(c.env), funding_help: c.env.FUNDING_HELP ?? "" }, 200);
  })
  .openapi(checkoutRoute, async (c) => {
    // The caller and their role first: whether payments are on is not a refused caller's business.
    unwrap(await accountOf(c.env, c.var.accountId).authenticate(c.var.credential));
    const stripe = stripeClient(c.env);
    if (!stripe) throw new ApiError("conflict", PAYMENTS_OFF);
    const { amount_micros } = c.req.valid("json");
    const bounds = paymentBounds(c.env);
    if (amount_micros < bounds.min_micros || amount_micros > bounds.max_micros) {
      throw new ApiError("invalid", `amount_micros: must be from ${bounds.min_micros} to ${bounds.max_micros}`);
    }
    const idempotencyKey = c.req.valid("header")["idempotency-key"];
    const session = await createSession(stripe, c.var.accountId, amount_micros, new URL(c.req.url).origin, idempotencyKey);
    unwrap(await accountOf(c.env, c.var.accountId).recordCheckout({ session_id: session.id, amount_micros }));
    return c.json({ id: session.id, url: session.url ?? "", expires_at: new Date(session.expires_at * 1000).toISOString() }, 201);
  })
  .openapi(webhookRoute, async (c) => {
    const secret = webhookSecret(c.env);
    if (!secret) throw new ApiError("conflict", PAYMENTS_OFF);
    const signature = c.req.header("stripe-signature");
    if (!signature) throw new ApiError("bad_request", "Stripe-Signature: missing");
    const payload = await c.req.text();
    let event: Stripe.Event;
    try {
      event = await Stripe.webhooks.constructEventAsync(payload, signature, secret, SIGNATURE_TOLERANCE_S, Stripe.createSubtleCryptoProvider());
    } catch (error) {
      throw new ApiError("bad_request", `Stripe-Signature: ${error instanceof Error ? error.message : "not valid"}`);
    }
    const fact = factOf(event);
    if (fact) await deliverFact(c.env, fact, event);
    return c.json({ received: true as const }, 200);
  });

async function createSession(stripe: Stripe, accountId: string, amountMicros: number, origin: string, idempotencyKey: string | undefined) {
  try {
    return await stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [{ quantity: 1, price_data: { currency: "usd", unit_amount: amountMicros / 10_000, product_data: { name: "GPU rental balance" } } }],
      client_reference_id: accountId,
      metadata: { account_id: accountId },
      payment_intent_data: { metadata: { account_id: accountId } },
      success_url: `${origin}/billing?payment=success&session={CHECKOUT_SESSION_ID}`,
      cancel_url: `${origin}/billing?payment=cancelled`,
    }, idempotencyKey ? { idempotencyKey: `${accountId}:${idempotencyKey}` } : undefined);
  } catch (error) {
    log("error", "Stripe refused or could not be reached", { account_id: accountId, error: error instanceof Error ? error.message : String(error) });
    throw new ApiError("upstream_unavailable", "the payment provider could not be reached or refused the request; try again");
  }
}
