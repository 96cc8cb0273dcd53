// Whether this service takes card payments, and how it reaches Stripe. Payments are on when the
// secret `STRIPE_SECRET_KEY` is set; the webhook needs only `STRIPE_WEBHOOK_SECRET` to verify what
// Stripe sends. `STRIPE_API_URL` points the client elsewhere (a local stand-in in tests and in
// `npm run dev -- --stripe-stand-in`).
import Stripe from "stripe";
import type { Env } from "../../../core/env.ts";

/** Optional secrets: wrangler's types list only the required ones. */
type StripeSecrets = Partial<Record<"STRIPE_SECRET_KEY" | "STRIPE_WEBHOOK_SECRET", string>>;

export interface PaymentBounds {
  min_micros: number;
  max_micros: number;
}

const DEFAULT_BOUNDS: PaymentBounds = { min_micros: 5_000_000, max_micros: 1_000_000_000 };

export function paymentBounds(env: Env): PaymentBounds {
  const read = (value: string | undefined, fallback: number) => (value && Number.isSafeInteger(Number(value)) ? Number(value) : fallback);
  return { min_micros: read(env.PAYMENT_MIN_MICROS, DEFAULT_BOUNDS.min_micros), max_micros: read(env.PAYMENT_MAX_MICROS, DEFAULT_BOUNDS.max_micros) };
}

/** The Stripe client for the API calls, or null when payments are off. */
export function stripeClient(env: Env): Stripe | null {
  const key = (env as StripeSecrets).STRIPE_SECRET_KEY;
  if (!key) return null;
  const api = new URL(env.STRIPE_API_URL || "https://api.stripe.com");
  return new Stripe(key, {
    httpClient: Stripe.createFetchHttpClient(),
    protocol: api.protocol === "http:" ? "http" : "https",
    host: api.hostname,
    port: api.port || (api.protocol === "http:" ? 80 : 443),
    maxNetworkRetries: 2,
    telemetry: false,
  });
}

export function webhookSecret(env: Env): string | null {
  return (env as StripeSecrets).STRIPE_WEBHOOK_SECRET || null;
}
