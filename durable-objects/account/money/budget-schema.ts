// The budgets' tables (budgets.ts): the account's monthly budget and what reaching it does, each API
// key's monthly limit, which key launched each instance (copied onto its charge rows), and the
// thresholds of the budget each month has crossed. A threshold is recorded by a trigger on the ledger,
// in the transaction of the charge or storage row whose growth crossed it, whichever path settled it
// (the alarm, a stop, a volume's commit): its primary key (month, percent) lets it be recorded once,
// however many charges race past it, and its insertion records the `budget.threshold` webhook event.
import { addColumnIfMissing } from "../../add-column.ts";
import type { Sql } from "../../sql.ts";

/** The budget's thresholds, in percent of it. */
export const BUDGET_THRESHOLDS = [50, 80, 100] as const;

const NOW_ISO = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";

export function createBudgetSchema(sql: Sql): void {
  // null: no budget. `notify`: reaching it only refuses launches and starts; `stop` stops what runs too.
  addColumnIfMissing(sql, "account", "monthly_budget_micros", "INTEGER");
  addColumnIfMissing(sql, "account", "budget_action", "TEXT NOT NULL DEFAULT 'notify'");
  // The key's id; null for a person's launch and for instances from before.
  addColumnIfMissing(sql, "instances", "launched_by_key", "TEXT");
  addColumnIfMissing(sql, "ledger", "launched_by_key", "TEXT");
  sql`CREATE INDEX IF NOT EXISTS ledger_charges_by_key ON ledger (launched_by_key, span_start_ms) WHERE launched_by_key IS NOT NULL`;
  sql`CREATE INDEX IF NOT EXISTS ledger_spend_by_time ON ledger (span_start_ms) WHERE kind IN ('charge', 'storage')`;
  sql`CREATE TABLE IF NOT EXISTS budget_thresholds (
    month TEXT NOT NULL, percent INTEGER NOT NULL, spent_micros INTEGER NOT NULL, budget_micros INTEGER NOT NULL, at TEXT NOT NULL,
    PRIMARY KEY (month, percent))`;
  createTriggers(sql);
}

/**
 * The thresholds the budget's month holding `msExpression` has crossed and not recorded yet, recorded.
 * `msExpression` is SQL: the charge row's start in the triggers, a number the budget's change computed.
 */
export function recordCrossingsSql(msExpression: string): string {
  const month = (modifiers: string) => `CAST(strftime('%s', (${msExpression}) / 1000, 'unixepoch', 'start of month'${modifiers}) AS INTEGER) * 1000`;
  const percents = BUDGET_THRESHOLDS.map((percent) => `SELECT ${percent} AS percent`).join(" UNION ALL ");
  return `INSERT OR IGNORE INTO budget_thresholds (month, percent, spent_micros, budget_micros, at)
    SELECT month, percent, spent, budget, ${NOW_ISO} FROM (
      SELECT m.month, p.percent, a.monthly_budget_micros AS budget,
        (SELECT COALESCE(-SUM(amount_micros), 0) FROM ledger
          WHERE kind IN ('charge', 'storage') AND span_start_ms >= m.start_ms AND span_start_ms < m.end_ms) AS spent
      FROM account a,
        (SELECT strftime('%Y-%m', (${msExpression}) / 1000, 'unixepoch') AS month, ${month("")} AS start_ms, ${month(", '+1 month'")} AS end_ms) m,
        (${percents}) p
      WHERE a.monthly_budget_micros IS NOT NULL)
    WHERE spent * 100 >= budget * percent ORDER BY percent`;
}

function createTriggers(sql: Sql): void {
  // The statements hold only constants of this file, never input.
  const exec = (text: string) => sql([text] as unknown as TemplateStringsArray);
  for (const [name, event] of [["budget_charge_opened", "INSERT"], ["budget_charge_grown", "UPDATE OF amount_micros"]]) {
    exec(`CREATE TRIGGER IF NOT EXISTS ${name} AFTER ${event} ON ledger
      WHEN NEW.kind IN ('charge', 'storage') AND (SELECT monthly_budget_micros FROM account) IS NOT NULL BEGIN
      ${recordCrossingsSql("NEW.span_start_ms")};
    END`);
  }
  exec(`CREATE TRIGGER IF NOT EXISTS budget_threshold_event AFTER INSERT ON budget_thresholds BEGIN
    INSERT INTO webhook_events (id, type, data, created_at) VALUES ('msg_' || lower(hex(randomblob(12))), 'budget.threshold',
      json_object('percent', NEW.percent, 'spent_micros', NEW.spent_micros, 'budget_micros', NEW.budget_micros), ${NOW_ISO});
  END`);
}
