// The Worker -> AccountDO message of a verified Stripe event that moves money (the Worker checks
// the signature and reads the event; the account applies it, once).

export type PaymentEvent =
  /** A paid Checkout Session: `amount_micros` is its amount_total in cents × 10,000. */
  | { kind: "paid"; session_id: string; amount_micros: number }
  /** A charge refunded, in part or whole: `refunded_micros` is all Stripe has refunded of it so far. */
  | { kind: "refunded"; charge_id: string; refunded_micros: number };

/** Cents (Stripe's USD unit) to micro-dollars, exactly. */
export const MICROS_PER_CENT = 10_000;
