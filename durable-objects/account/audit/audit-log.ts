// The account's audit log: every change to the account, by whom (actors.ts), to what, from where, with
// a short detail. `recordAudit` is called inside the transaction that makes the change, so an entry
// exists exactly when its change committed: a refused change, or one rolled back, leaves none. Read
// newest first in pages that continue strictly below the last entry shown (keyset pagination on the
// id), so entries written between two reads never make a page repeat or skip one.
import { clock, iso } from "../../../core/clock.ts";
import type { AuditEntry, AuditPage, AuditQuery } from "../../contracts/audit.ts";
import type { Sql } from "../../sql.ts";
import { currentActing } from "./actors.ts";

export function createAuditSchema(sql: Sql): void {
  sql`CREATE TABLE IF NOT EXISTS audit_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, actor_type TEXT NOT NULL, actor_id TEXT, actor_label TEXT NOT NULL,
    action TEXT NOT NULL, target_type TEXT NOT NULL, target_id TEXT, ip TEXT, detail TEXT NOT NULL)`;
  // The pruning's oldest entry (audit-pruning.ts).
  sql`CREATE INDEX IF NOT EXISTS audit_log_by_time ON audit_log (at)`;
}

/** A change as its part records it; who made it and from where come from the call it runs in. */
export interface AuditedChange {
  action: string;
  target: { type: string; id: string | null };
  detail: string;
}

/** Writes the entry; call it inside the transaction of the change, never after. */
export function recordAudit(sql: Sql, change: AuditedChange): void {
  const { actor, ip } = currentActing();
  sql`INSERT INTO audit_log (at, actor_type, actor_id, actor_label, action, target_type, target_id, ip, detail)
      VALUES (${iso(clock.now())}, ${actor.type}, ${actor.id}, ${actor.label}, ${change.action}, ${change.target.type},
        ${change.target.id}, ${ip}, ${change.detail})`;
}

interface AuditRow {
  id: number;
  at: string;
  actor_type: AuditEntry["actor"]["type"];
  actor_id: string | null;
  actor_label: string;
  action: string;
  target_type: string;
  target_id: string | null;
  ip: string | null;
  detail: string;
}

/** Up to `limit` entries below `before`, newest first, of the actor and action asked for (each null: any). */
export function auditPage(sql: Sql, query: AuditQuery): AuditPage {
  const { limit, before, actor, action } = query;
  const rows = sql<AuditRow>`
    SELECT id, at, actor_type, actor_id, actor_label, action, target_type, target_id, ip, detail FROM audit_log
    WHERE id < ${before ?? Number.MAX_SAFE_INTEGER}
      AND (${actor} IS NULL OR actor_type = ${actor} OR actor_id = ${actor} OR actor_label = ${actor})
      AND (${action} IS NULL OR action = ${action} OR action LIKE ${`${action ?? ""}.%`})
    ORDER BY id DESC LIMIT ${limit + 1}`;
  const items = rows.slice(0, limit).map(entryOf);
  return { items, next_cursor: rows.length > limit ? String(items.at(-1)!.id) : null };
}

const entryOf = (row: AuditRow): AuditEntry => ({
  id: row.id,
  at: row.at,
  actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
  action: row.action,
  target: { type: row.target_type, id: row.target_id },
  ip: row.ip,
  detail: row.detail,
});

/** `field value, …` of the fields a change sets (`none` for null), for an entry's detail. */
export const describeChanges = (changes: object): string =>
  Object.entries(changes).filter(([, value]) => value !== undefined).map(([field, value]) => `${field} ${value ?? "none"}`).join(", ");
