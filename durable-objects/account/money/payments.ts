// Money in from Stripe, applied exactly once however often and in whatever order Stripe delivers
// its events (it retries for days): a paid Checkout Session credits the account once per session
// id, and only a session this service created for the account (recorded here before its address
// was handed out); a refund debits what Stripe says was refunded of a charge beyond what was debited
// already; a dispute takes its amount and a won one gives it back (disputes.ts). The Worker has
// verified each event's signature; this object is the authority for whether it has been applied:
// the `payments` row is written in the same transaction as the ledger's, and so is the account's
// webhook event (payment.succeeded, payment.refunded).
import { clock, iso } from "../../../core/clock.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import type { CreatedCheckout, PaymentEvent } from "../../contracts/payments.ts";
import type { Sql } from "../../sql.ts";
import { settleAll } from "./billing.ts";
import { applyDispute } from "./disputes.ts";
import { changeBalance } from "./ledger.ts";
import { recordWebhookEvent } from "../webhooks/webhook-events.ts";
import { recordAudit } from "../audit/audit-log.ts";

export interface PaymentParts {
  sql: Sql;
  transaction<T>(fn: () => T): T;
  /** Settles now, stopping what runs when the balance is used up and ending the volumes' grace when it is not (settlement.ts). */
  settleNow(): void;
}

export class Payments {
  private readonly parts: PaymentParts;

  constructor(parts: PaymentParts) {
    this.parts = parts;
  }

  /** A Checkout Session the Worker created for this account: the only kind a payment credits. */
  recordCheckout(checkout: CreatedCheckout): { ok: true } {
    this.parts.sql`INSERT OR IGNORE INTO checkouts (session_id, amount_micros, created_at)
      VALUES (${checkout.session_id}, ${checkout.amount_micros}, ${iso(clock.now())})`;
    return { ok: true };
  }

  /** `applied`: false for an event applied before (or a refund older than one applied); a session not created for this account is refused. */
  apply(event: PaymentEvent): { ok: true; applied: boolean } | Failure {
    if (event.kind === "paid" && !this.createdHere(event.session_id, event.created_s)) {
      return fail("not_found", `Checkout Session ${event.session_id} was not created by this service for this account`);
    }
    const applied = this.parts.transaction(() => {
      switch (event.kind) {
        case "paid":
          return this.credit(event);
        case "refunded":
          return this.debit(event);
        default:
          return applyDispute(this.parts.sql, event);
      }
    });
    // A refund or a dispute can use the balance up: what runs stops, as when funds run out; a payment
    // can bring it above zero again, which ends the volumes' grace.
    if (applied) this.parts.settleNow();
    return { ok: true, applied };
  }

  /** Recorded at its creation; or, for an account from before the recording, created by Stripe before it began. */
  private createdHere(sessionId: string, createdS: number): boolean {
    const { sql } = this.parts;
    if (sql`SELECT 1 FROM checkouts WHERE session_id = ${sessionId}`.length > 0) return true;
    const from = sql<{ from_s: number | null }>`SELECT checkouts_recorded_from_s AS from_s FROM account`[0]?.from_s ?? null;
    return from !== null && createdS < from;
  }

  private credit(event: Extract<PaymentEvent, { kind: "paid" }>): boolean {
    const { sql } = this.parts;
    if (this.applied(event.session_id) !== null) return false;
    const at = iso(clock.now());
    settleAll(sql, clock.now());
    const balance = changeBalance(sql, { kind: "payment", amountMicros: event.amount_micros, note: `Stripe Checkout ${event.session_id}`, at });
    sql`INSERT INTO payments (stripe_id, amount_micros, updated_at) VALUES (${event.session_id}, ${event.amount_micros}, ${at})`;
    recordAudit(sql, { action: "payment.credit", target: { type: "payment", id: event.session_id }, detail: `${event.amount_micros} micros by card` });
    recordWebhookEvent(sql, "payment.succeeded", { checkout_session_id: event.session_id, amount_micros: event.amount_micros, balance_micros: balance }, clock.now());
    return true;
  }

  private debit(event: Extract<PaymentEvent, { kind: "refunded" }>): boolean {
    const { sql } = this.parts;
    const due = event.refunded_micros - (this.applied(event.charge_id) ?? 0);
    if (due <= 0) return false;
    const at = iso(clock.now());
    settleAll(sql, clock.now());
    const balance = changeBalance(sql, { kind: "refund", amountMicros: -due, note: `Stripe refund of ${event.charge_id}`, at });
    sql`INSERT OR REPLACE INTO payments (stripe_id, amount_micros, updated_at) VALUES (${event.charge_id}, ${event.refunded_micros}, ${at})`;
    recordAudit(sql, { action: "payment.refund", target: { type: "payment", id: event.charge_id }, detail: `${due} micros refunded` });
    recordWebhookEvent(sql, "payment.refunded", { charge_id: event.charge_id, amount_micros: due, balance_micros: balance }, clock.now());
    return true;
  }

  /** What was applied for a session (its credit) or a charge (all refunded of it); null when nothing. */
  private applied(stripeId: string): number | null {
    return this.parts.sql<{ amount_micros: number }>`SELECT amount_micros FROM payments WHERE stripe_id = ${stripeId}`[0]?.amount_micros ?? null;
  }
}
