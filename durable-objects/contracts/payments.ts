// The Worker -> AccountDO messages of verified Stripe events about an account (the Worker checks the
// signature and reads the event; the account applies it, once), and the Checkout Sessions the
// Worker creates, which the account records so that it credits those alone.

export type PaymentEvent =
  /** A paid Checkout Session, created `created_s` (Stripe's seconds): `amount_micros` is its amount_total in cents × 10,000. */
  | { kind: "paid"; session_id: string; amount_micros: number; created_s: number }
  /** A charge refunded, in part or whole: `refunded_micros` is all Stripe has refunded of it so far. */
  | { kind: "refunded"; charge_id: string; refunded_micros: number }
  /** A dispute opened on a charge: `amount_micros` is the disputed amount. */
  | { kind: "disputed"; dispute_id: string; charge_id: string; amount_micros: number }
  /** A dispute closed: `won` (or an inquiry closed without a chargeback) gives the amount back, `lost` keeps it taken. */
  | { kind: "dispute_closed"; dispute_id: string; charge_id: string; amount_micros: number; won: boolean };

/** Stripe's early warning that a charge of the account's was fraudulent: new launches and starts are refused until the operator clears it. */
export interface FraudWarning {
  warning_id: string;
  charge_id: string;
  fraud_type: string;
}

/** A Checkout Session the Worker created for the account, recorded before its address is handed out. */
export interface CreatedCheckout {
  session_id: string;
  amount_micros: number;
}

/** Cents (Stripe's USD unit) to micro-dollars, exactly. */
export const MICROS_PER_CENT = 10_000;
