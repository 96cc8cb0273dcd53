// An account frozen after Stripe's early fraud warning on one of its payments (or by the operator):
// its launches and starts are refused with 403 account_frozen until the operator clears it
// (PATCH /admin/v1/accounts/{id} {"frozen": false}); what runs keeps running. Each warning freezes
// once: the same warning delivered again after the operator cleared the account changes nothing.
// The caller is told only that the account is frozen; the reason is the operator's.
import { clock, iso } from "../../../core/clock.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import type { FraudWarning } from "../../contracts/payments.ts";
import type { Sql } from "../../sql.ts";

/** Inside a transaction: freezes the account for `warning`, unless it froze it before; whether it did now. */
export function freezeForWarning(sql: Sql, warning: FraudWarning): boolean {
  if (sql`SELECT 1 FROM fraud_warnings WHERE warning_id = ${warning.warning_id}`.length > 0) return false;
  sql`INSERT INTO fraud_warnings (warning_id, charge_id, received_at) VALUES (${warning.warning_id}, ${warning.charge_id}, ${iso(clock.now())})`;
  const reason = `Stripe early fraud warning ${warning.warning_id} (${warning.fraud_type}) on charge ${warning.charge_id}`;
  sql`UPDATE account SET frozen_reason = ${reason}`;
  return true;
}

/** The operator's freeze or clearing; a frozen account keeps the reason it has. */
export function setFrozen(sql: Sql, frozen: boolean): void {
  if (!frozen) sql`UPDATE account SET frozen_reason = NULL`;
  else sql`UPDATE account SET frozen_reason = 'frozen by the operator' WHERE frozen_reason IS NULL`;
}

/** Why the account is frozen; null when it is not. */
export function frozenReason(sql: Sql): string | null {
  return sql<{ frozen_reason: string | null }>`SELECT frozen_reason FROM account`[0]?.frozen_reason ?? null;
}

/** 403 account_frozen while the account is frozen. */
export function frozenRefusal(sql: Sql): Failure | null {
  if (frozenReason(sql) === null) return null;
  return fail("account_frozen", "the account is frozen while one of its payments is reviewed: launches and starts are refused until the operator clears it; contact the operator");
}
