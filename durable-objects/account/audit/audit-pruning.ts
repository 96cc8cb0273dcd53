// The audit log keeps 400 days: older entries are deleted on the object's alarm, which is set for when
// the oldest one turns 400 days old.
import { iso } from "../../../core/clock.ts";
import type { AlarmCapability } from "../../outbox/single-alarm.ts";
import type { Sql } from "../../sql.ts";

export const AUDIT_KEPT_MS = 400 * 86_400_000;

export class AuditPruning implements AlarmCapability {
  private readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  nextAlarmMs(): number | null {
    const [oldest] = this.sql<{ at: string | null }>`SELECT MIN(at) AS at FROM audit_log`;
    return oldest?.at ? Date.parse(oldest.at) + AUDIT_KEPT_MS : null;
  }

  onAlarm(nowMs: number): void {
    this.sql`DELETE FROM audit_log WHERE at <= ${iso(nowMs - AUDIT_KEPT_MS)}`;
  }
}
