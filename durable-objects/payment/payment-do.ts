// PaymentDO, one per Stripe PaymentIntent of a Checkout Session this service created (addressed by
// stripePaymentOf, core/env.ts). Authority for: which account the payment went to. Stripe's later
// events about a payment (a dispute, an early fraud warning) name only its charge and PaymentIntent,
// not the account; the Worker writes the account here once the account has credited the session,
// and reads it back to route those events.
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../core/env.ts";
import { useLogLevel } from "../../core/log.ts";
import { sqlFor } from "../sql.ts";

export class PaymentDO extends DurableObject<Env> {
  private readonly sql = sqlFor(this.ctx.storage);

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    useLogLevel(env.LOG_LEVEL);
    this.sql`CREATE TABLE IF NOT EXISTS payment (id INTEGER PRIMARY KEY CHECK (id = 1), account_id TEXT NOT NULL, session_id TEXT NOT NULL)`;
  }

  /** Records that the payment went to `accountId`, by Checkout Session `sessionId`; the first account recorded stays. */
  remember(accountId: string, sessionId: string): { account_id: string } {
    this.sql`INSERT OR IGNORE INTO payment (id, account_id, session_id) VALUES (1, ${accountId}, ${sessionId})`;
    return { account_id: this.accountId()! };
  }

  /** The account the payment went to; null for a payment this service did not take (or not yet). */
  accountId(): string | null {
    return this.sql<{ account_id: string }>`SELECT account_id FROM payment`[0]?.account_id ?? null;
  }
}
