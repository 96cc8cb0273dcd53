// AccountDO's SQLite schema, every table of it, created idempotently in the constructor; an object
// created by an older release upgrades in place (its additions run on every start). Each table is
// read and written by the part named beside it; the outbox's own table is the outbox's (outbox.ts).
import { addColumnIfMissing } from "../add-column.ts";
import { replaceLegacyOutbox } from "../outbox/outbox.ts";
import type { Sql } from "../sql.ts";
import { DEFAULT_LAUNCH_TIMEOUT_MS } from "./instances/launch-timeout.ts";
import { foldLegacyCharges } from "./money/ledger-folding.ts";
import { createBudgetSchema } from "./money/budget-schema.ts";
import { createMemberSchema } from "./members/schema.ts";
import { createAuditSchema } from "./audit/audit-log.ts";
import { addKeyExpiryColumn } from "./credentials/key-expiry.ts";
import { addKeyRightsColumns } from "./credentials/keys.ts";
import { createSshKeySchema } from "./credentials/ssh-keys.ts";
import { createVolumeSchema } from "./volumes/schema.ts";
import { createStorageChargeSchema } from "./volumes/storage-charges.ts";
import { createVolumeUploadSchema } from "./volumes/uploads.ts";
import { createWebhookSchema } from "./webhooks/webhook-schema.ts";

export function createAccountSchema(sql: Sql): void {
  // account-record.ts; its balance is changed by ledger.ts alone.
  sql`CREATE TABLE IF NOT EXISTS account (
    id TEXT PRIMARY KEY, referral_code TEXT NOT NULL, created_at TEXT NOT NULL, balance_micros INTEGER NOT NULL)`;
  // keys.ts, and key-set.ts's version of the set.
  sql`CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, prefix TEXT NOT NULL, hash TEXT NOT NULL,
    created_at TEXT NOT NULL, last_used_at TEXT, revoked_at TEXT)`;
  sql`CREATE TABLE IF NOT EXISTS key_set (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)`;
  // keys.ts: each key's scopes, instances, expiry and monthly limit.
  addKeyRightsColumns(sql);
  addKeyExpiryColumn(sql);
  // ledger.ts writes it (charge-rows.ts its charges), ledger-page.ts and usage.ts read it.
  sql`CREATE TABLE IF NOT EXISTS ledger (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, amount_micros INTEGER NOT NULL,
    instance_id TEXT, note TEXT NOT NULL, created_at TEXT NOT NULL)`;
  // instance-row.ts; changed by instance-actions.ts, reports.ts, billing.ts, launch-timeout.ts, expiry.ts.
  sql`CREATE TABLE IF NOT EXISTS instances (
    id TEXT PRIMARY KEY, label TEXT NOT NULL, status TEXT NOT NULL, status_message TEXT NOT NULL,
    desired_state TEXT NOT NULL, gpu_model TEXT NOT NULL, gpu_count INTEGER NOT NULL, template TEXT NOT NULL,
    model TEXT NOT NULL, image TEXT NOT NULL, disk_gb INTEGER NOT NULL, ports TEXT NOT NULL, env TEXT NOT NULL,
    token TEXT NOT NULL, price_hour_micros INTEGER NOT NULL, machine_id INTEGER, machine_online INTEGER NOT NULL,
    created_at TEXT NOT NULL, created_ms INTEGER NOT NULL, started_at TEXT, destroyed_ms INTEGER,
    generation INTEGER NOT NULL, billed_until_ms INTEGER, carry INTEGER NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, instance_id TEXT NOT NULL, message TEXT NOT NULL, created_at TEXT NOT NULL)`;
  sql`CREATE INDEX IF NOT EXISTS events_by_instance ON events (instance_id, seq)`;
  // instance-actions.ts (launch's Idempotency-Key).
  sql`CREATE TABLE IF NOT EXISTS idempotency (
    key TEXT PRIMARY KEY, body_hash TEXT NOT NULL, instance_id TEXT NOT NULL, created_ms INTEGER NOT NULL)`;
  // reports.ts: the last report applied from each machine.
  sql`CREATE TABLE IF NOT EXISTS machine_seq (machine_id INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL)`;
  // Which machines each browser session opened web apps on, while a session's end went to those alone;
  // it goes to every host of the account now (credential-ends.ts).
  sql`DROP TABLE IF EXISTS app_openers`;
  upgradeLegacyOutbox(sql);
  addAccountSchemaAdditions(sql);
  // webhook-schema.ts: endpoints, events, deliveries, and the triggers that record events.
  createWebhookSchema(sql);
  // ssh-keys.ts.
  createSshKeySchema(sql);
  // volumes/: volumes, their attachments, snapshots, chunk references and garbage.
  createVolumeSchema(sql);
  // volumes/storage-charges.ts: the ledger's storage rows and the volumes' accrual.
  createStorageChargeSchema(sql);
  // volumes/uploads.ts: files going into volumes in parts, and the chunks each keeps meanwhile.
  createVolumeUploadSchema(sql);
  // members/: the account's members, invitations and name, and who made each API key.
  createMemberSchema(sql);
  // audit/: who changed what, kept 400 days.
  createAuditSchema(sql);
  // money/budgets.ts: the monthly budget, keys' limits, which key launched what, and the thresholds crossed (after the webhooks' tables, whose events its trigger writes).
  createBudgetSchema(sql);
}

/**
 * Desired-state changes had a table of their own before the outbox was shared (typed columns, the
 * machine id as an integer): an object created then has its queued changes moved into outbox rows.
 */
export function upgradeLegacyOutbox(sql: Sql): void {
  if (sql`SELECT 1 FROM pragma_table_info('outbox') WHERE name = 'machine_id'`.length === 0) return;
  replaceLegacyOutbox(sql, () => sql`INSERT INTO outbox (destination, message, attempts, next_ms)
      SELECT machine_id, json_object('instance_id', instance_id, 'desired', desired, 'generation', generation), attempts, next_ms
      FROM outbox_legacy ORDER BY seq`);
}

/** What the schema gained with sign-in, sessions, the ledger's running balance, port readiness and launch deadlines. */
export function addAccountSchemaAdditions(sql: Sql): void {
  // Null for accounts the operator created without one.
  addColumnIfMissing(sql, "account", "email", "TEXT");
  if (addColumnIfMissing(sql, "ledger", "balance_after_micros", "INTEGER")) {
    // Rows written before the column existed: their running balance, once.
    sql`UPDATE ledger SET balance_after_micros = (SELECT SUM(earlier.amount_micros) FROM ledger AS earlier WHERE earlier.seq <= ledger.seq)`;
  }
  // The login of before teams, until its person takes it over (legacy-login.ts).
  sql`CREATE TABLE IF NOT EXISTS password (
    algorithm TEXT NOT NULL, iterations INTEGER NOT NULL, salt TEXT NOT NULL, hash TEXT NOT NULL, updated_at TEXT NOT NULL)`;
  sql`CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, last_used_ms INTEGER NOT NULL)`;
  // Which HTTP ports answer in the instance's current run (port-readiness.ts): none, for rows from before.
  addColumnIfMissing(sql, "instances", "readiness", "TEXT NOT NULL DEFAULT '{}'");
  // Written when a sign-up that was to create this account was given up: it never can be created later (signup-fence.ts).
  sql`CREATE TABLE IF NOT EXISTS abandoned_signup (at TEXT NOT NULL)`;
  // When a launch or start not yet confirmed by its host is given up (launch-timeout.ts). A launch
  // or start still waiting from before gets the default timeout from its creation.
  if (addColumnIfMissing(sql, "instances", "launch_deadline_ms", "INTEGER")) {
    sql`UPDATE instances SET launch_deadline_ms = created_ms + ${DEFAULT_LAUNCH_TIMEOUT_MS} WHERE status IN ('creating', 'starting')`;
  }
  // What the instance got of its host's memory and CPUs, as its MachineDO said at the reservation;
  // null for instances from before, and on a host whose agent has not said what it has.
  // The operator's GPU limit for this account; null: ACCOUNT_MAX_GPUS (gpu-limit.ts).
  addColumnIfMissing(sql, "account", "max_gpus", "INTEGER");
  // Stripe sessions credited and charges refunded, each once (payments.ts).
  sql`CREATE TABLE IF NOT EXISTS payments (stripe_id TEXT PRIMARY KEY, amount_micros INTEGER NOT NULL, updated_at TEXT NOT NULL)`;
  addColumnIfMissing(sql, "instances", "memory_mib", "INTEGER");
  addColumnIfMissing(sql, "instances", "milli_cpus", "INTEGER");
  // The idle stop (idle-stop.ts): its minutes (null: never), since when idle time counts (the setting's
  // last change), and when it next asks the instance's MachineDO; null for instances from before.
  addColumnIfMissing(sql, "instances", "idle_stop_minutes", "INTEGER");
  addColumnIfMissing(sql, "instances", "idle_from_ms", "INTEGER");
  addColumnIfMissing(sql, "instances", "idle_check_ms", "INTEGER");
  // Its host's SSH server's public key line, from the reservation and the host's reports; null until the host has one.
  addColumnIfMissing(sql, "instances", "ssh_host_key", "TEXT");
  addHourlyCharges(sql);
  addStripeRecords(sql);
}

/** Checkout Sessions created for the account, Stripe's disputes and early fraud warnings applied to it, and its freeze. */
function addStripeRecords(sql: Sql): void {
  // payments.ts: only a session recorded here when it was created is credited. An account from before
  // the recording credits, as it did, the sessions Stripe created before it began (seconds, Stripe's clock).
  sql`CREATE TABLE IF NOT EXISTS checkouts (session_id TEXT PRIMARY KEY, amount_micros INTEGER NOT NULL, created_at TEXT NOT NULL)`;
  if (addColumnIfMissing(sql, "account", "checkouts_recorded_from_s", "INTEGER")) {
    sql`UPDATE account SET checkouts_recorded_from_s = ${Math.floor(Date.now() / 1000)}`;
  }
  // disputes.ts: each dispute's amount and whether it is taken (`debited`) or given back (`won`).
  sql`CREATE TABLE IF NOT EXISTS disputes (
    dispute_id TEXT PRIMARY KEY, charge_id TEXT NOT NULL, amount_micros INTEGER NOT NULL, state TEXT NOT NULL, updated_at TEXT NOT NULL)`;
  // account-freeze.ts: why the account is frozen (null: it is not), and each warning that froze it, once.
  addColumnIfMissing(sql, "account", "frozen_reason", "TEXT");
  sql`CREATE TABLE IF NOT EXISTS fraud_warnings (warning_id TEXT PRIMARY KEY, charge_id TEXT NOT NULL, received_at TEXT NOT NULL)`;
}

/** Charge rows per instance and hour (charge-rows.ts): what each covers, and each instance's open row. */
function addHourlyCharges(sql: Sql): void {
  addColumnIfMissing(sql, "ledger", "label", "TEXT");
  addColumnIfMissing(sql, "ledger", "gpu_model", "TEXT");
  addColumnIfMissing(sql, "ledger", "gpu_count", "INTEGER");
  addColumnIfMissing(sql, "ledger", "span_end_ms", "INTEGER");
  addColumnIfMissing(sql, "instances", "open_charge_seq", "INTEGER");
  // The fold runs once: when the column that tells a folded (or new) charge row is added.
  const added = addColumnIfMissing(sql, "ledger", "span_start_ms", "INTEGER");
  sql`CREATE INDEX IF NOT EXISTS ledger_charges_by_time ON ledger (span_start_ms) WHERE kind = 'charge'`;
  if (added) foldLegacyCharges(sql);
}
