// A card payment disputed by its payer: Stripe takes the disputed amount back from the service when
// the dispute opens, so the account's balance loses it too (ledger kind `dispute`), and gets it back
// when the dispute is won (or an inquiry closes without a chargeback). Each dispute moves money at
// most once each way, in whatever order and however often Stripe delivers its events: a dispute
// closed in the service's favour before its opening arrives moves nothing, then or later; one lost
// before its opening arrives is taken then.
import { clock, iso } from "../../../core/clock.ts";
import type { PaymentEvent } from "../../contracts/payments.ts";
import type { Sql } from "../../sql.ts";
import { settleAll } from "./billing.ts";
import { changeBalance } from "./ledger.ts";
import { recordAudit } from "../audit/audit-log.ts";

type DisputeEvent = Extract<PaymentEvent, { kind: "disputed" | "dispute_closed" }>;

/** Inside a transaction: applies the opening or closing of a dispute; whether the balance changed. */
export function applyDispute(sql: Sql, event: DisputeEvent): boolean {
  const state = sql<{ state: "debited" | "won"; amount_micros: number }>`
    SELECT state, amount_micros FROM disputes WHERE dispute_id = ${event.dispute_id}`[0];
  const at = iso(clock.now());
  const givesBack = event.kind === "dispute_closed" && event.won;
  if (!state) {
    sql`INSERT INTO disputes (dispute_id, charge_id, amount_micros, state, updated_at)
        VALUES (${event.dispute_id}, ${event.charge_id}, ${event.amount_micros}, ${givesBack ? "won" : "debited"}, ${at})`;
    if (givesBack) return false;
    settleAll(sql, clock.now());
    changeBalance(sql, { kind: "dispute", amountMicros: -event.amount_micros, note: `Stripe dispute ${event.dispute_id} of ${event.charge_id}`, at });
    recordAudit(sql, { action: "payment.dispute", target: { type: "payment", id: event.charge_id }, detail: `${event.amount_micros} micros debited: dispute ${event.dispute_id}` });
    return true;
  }
  if (state.state !== "debited" || !givesBack) return false;
  sql`UPDATE disputes SET state = 'won', updated_at = ${at} WHERE dispute_id = ${event.dispute_id}`;
  settleAll(sql, clock.now());
  changeBalance(sql, { kind: "dispute", amountMicros: state.amount_micros, note: `Stripe dispute ${event.dispute_id} of ${event.charge_id} won`, at });
  recordAudit(sql, { action: "payment.dispute_won", target: { type: "payment", id: event.charge_id }, detail: `${state.amount_micros} micros credited back: dispute ${event.dispute_id}` });
  return true;
}
