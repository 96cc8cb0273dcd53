// What an account forgets with time: destroyed instances and their events once they are no longer
// listed (7 days), idempotency keys once they no longer dedupe (24 hours). Runs on the object's alarm.
import type { Sql } from "../../sql.ts";
import type { AlarmCapability } from "../../outbox/single-alarm.ts";

export const DESTROYED_VISIBLE_MS = 7 * 24 * 3_600_000;

/** How long an Idempotency-Key of a launch answers with the instance it made. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

export class Expiry implements AlarmCapability {
  private readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  nextAlarmMs(): number | null {
    const [destroyed] = this.sql<{ at: number | null }>`SELECT MIN(destroyed_ms) + ${DESTROYED_VISIBLE_MS} AS at FROM instances WHERE destroyed_ms IS NOT NULL`;
    const [idem] = this.sql<{ at: number | null }>`SELECT MIN(created_ms) + ${IDEMPOTENCY_TTL_MS} AS at FROM idempotency`;
    const due = [destroyed?.at ?? null, idem?.at ?? null].filter((at): at is number => at !== null);
    return due.length === 0 ? null : Math.min(...due);
  }

  onAlarm(nowMs: number): void {
    this.sql`DELETE FROM events WHERE instance_id IN
               (SELECT id FROM instances WHERE destroyed_ms IS NOT NULL AND destroyed_ms <= ${nowMs - DESTROYED_VISIBLE_MS})`;
    this.sql`DELETE FROM instances WHERE destroyed_ms IS NOT NULL AND destroyed_ms <= ${nowMs - DESTROYED_VISIBLE_MS}`;
    this.sql`DELETE FROM idempotency WHERE created_ms <= ${nowMs - IDEMPOTENCY_TTL_MS}`;
  }
}
