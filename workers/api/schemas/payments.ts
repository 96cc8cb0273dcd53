// The payments API's shapes: whether card payments are on, and a Checkout Session to pay through.
import { z } from "@hono/zod-openapi";
import { timestamp } from "./common.ts";

export const PaymentConfig = z
  .object({
    payments_enabled: z.boolean().openapi({ description: "Whether this service takes card payments (Stripe Checkout)" }),
    currency: z.literal("usd").openapi({ description: "The currency of every payment" }),
    min_micros: z.number().int().openapi({ description: "The smallest payment, in micro-dollars (PAYMENT_MIN_MICROS)" }),
    max_micros: z.number().int().openapi({ description: "The largest payment, in micro-dollars (PAYMENT_MAX_MICROS)" }),
    funding_help: z.string().openapi({ description: "The operator's word on adding funds while payments are off (FUNDING_HELP): a sentence, maybe with one URL; \"\" when none" }),
  })
  .openapi("PaymentConfig");

const WHOLE_CENTS = "must be whole cents (a multiple of 10000 micro-dollars)";

export const CheckoutRequest = z
  .object({
    amount_micros: z.number("must be an integer number of micro-dollars").int("must be an integer number of micro-dollars")
      .refine((micros) => micros % 10_000 === 0, WHOLE_CENTS)
      .openapi({ description: "How much to add, in micro-dollars: whole cents, within the service's bounds (GET /v1/billing/config)", example: 25_000_000 }),
  })
  .openapi("CheckoutRequest");

export const CheckoutSession = z
  .object({
    id: z.string().openapi({ description: "The Stripe Checkout Session's id (`cs_...`)" }),
    url: z.string().openapi({ description: "Where to pay: Stripe's page, which returns to the dashboard's billing page" }),
    expires_at: timestamp.openapi({ description: "When the session can no longer be paid" }),
  })
  .openapi("CheckoutSession");

export const WebhookReceipt = z.object({ received: z.literal(true).openapi({ description: "Always true: the event was verified and handled" }) }).openapi("WebhookReceipt");
