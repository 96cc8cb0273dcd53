// What the AccountDO's schema gained with sign-in, sessions, the ledger's running balance, port readiness and launch deadlines.
// Applied after the original schema on every start: objects created before upgrade in place.
import { addColumnIfMissing } from "../add-column.ts";
import type { Sql } from "../sql.ts";
import { DEFAULT_LAUNCH_TIMEOUT_MS } from "./launch-timeout.ts";

export function addAccountSchemaAdditions(sql: Sql): void {
  // Null for accounts the operator created without one.
  addColumnIfMissing(sql, "account", "email", "TEXT");
  if (addColumnIfMissing(sql, "ledger", "balance_after_micros", "INTEGER")) {
    // Rows written before the column existed: their running balance, once.
    sql`UPDATE ledger SET balance_after_micros = (SELECT SUM(earlier.amount_micros) FROM ledger AS earlier WHERE earlier.seq <= ledger.seq)`;
  }
  sql`CREATE TABLE IF NOT EXISTS password (
    algorithm TEXT NOT NULL, iterations INTEGER NOT NULL, salt TEXT NOT NULL, hash TEXT NOT NULL, updated_at TEXT NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, last_used_ms INTEGER NOT NULL)`;
  // Which HTTP ports answer in the instance's current run (port-readiness.ts): none, for rows from before.
  addColumnIfMissing(sql, "instances", "readiness", "TEXT NOT NULL DEFAULT '{}'");
  // Written when a sign-up that was to create this account was given up: it never can be created later.
  sql`CREATE TABLE IF NOT EXISTS abandoned_signup (at TEXT NOT NULL)`;
  // When a launch or start not yet confirmed by its host is given up (launch-timeout.ts). A launch
  // or start still waiting from before gets the default timeout from its creation.
  if (addColumnIfMissing(sql, "instances", "launch_deadline_ms", "INTEGER")) {
    sql`UPDATE instances SET launch_deadline_ms = created_ms + ${DEFAULT_LAUNCH_TIMEOUT_MS} WHERE status IN ('creating', 'starting')`;
  }
}
