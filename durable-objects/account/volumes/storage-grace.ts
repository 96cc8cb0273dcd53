// What a used-up balance does to volumes: a settlement that leaves the balance at or below zero gives
// every volume a `delete_at_ms` VOLUME_GRACE_DAYS ahead, once (`volume.deletion_scheduled`); one that
// leaves it above zero (a payment, a credit) takes the dates away. Storage is still charged during the
// grace: a top-up must cover it to keep the volumes. At its date a volume is deleted with its objects,
// as a caller's DELETE would (volume-store.ts), once no instance holds it: the instances were stopped
// for funds when the balance ran out, and an attachment lasts until its host reports the container
// destroyed, so a volume attached to a stopped instance waits for that instance to be destroyed.
import { iso } from "../../../core/clock.ts";
import type { Env } from "../../../core/env.ts";
import { log } from "../../../core/log.ts";
import type { AlarmCapability } from "../../outbox/single-alarm.ts";
import type { Sql } from "../../sql.ts";
import { recordWebhookEvent } from "../webhooks/webhook-events.ts";
import type { VolumeStore } from "./volume-store.ts";

const DAY_MS = 86_400_000;

/** VOLUME_GRACE_DAYS (7 when unset) in milliseconds. */
function volumeGraceMs(env: Env): number {
  const days = Number(env.VOLUME_GRACE_DAYS);
  return (Number.isSafeInteger(days) && days >= 0 && env.VOLUME_GRACE_DAYS !== "" ? days : 7) * DAY_MS;
}

/** Inside the settlement's transaction, with the balance it left: starts the volumes' grace (≤ 0) or ends it (> 0). */
export function applyBalanceToVolumes(sql: Sql, env: Env, balanceMicros: number, nowMs: number): void {
  if (balanceMicros > 0) {
    sql`UPDATE volumes SET delete_at_ms = NULL WHERE delete_at_ms IS NOT NULL`;
    return;
  }
  const deleteAtMs = nowMs + volumeGraceMs(env);
  const scheduled = sql<{ id: string }>`UPDATE volumes SET delete_at_ms = ${deleteAtMs} WHERE delete_at_ms IS NULL RETURNING id`;
  for (const { id } of scheduled) recordWebhookEvent(sql, "volume.deletion_scheduled", { volume_id: id, delete_at: iso(deleteAtMs) }, nowMs);
}

/**
 * Now, when the balance is at or below zero and a volume has no date yet (one made since, or one that
 * holds nothing and so is never settled): the settlement that gives it one is due.
 */
export function graceDueMs(sql: Sql, balanceMicros: number, nowMs: number): number | null {
  return balanceMicros <= 0 && sql`SELECT 1 FROM volumes WHERE delete_at_ms IS NULL LIMIT 1`.length > 0 ? nowMs : null;
}

/** The alarm's part: deletes the volumes whose date has come and that no instance holds. */
export class VolumeGrace implements AlarmCapability {
  private readonly sql: Sql;
  private readonly store: VolumeStore;

  constructor(sql: Sql, store: VolumeStore) {
    this.sql = sql;
    this.store = store;
  }

  nextAlarmMs(): number | null {
    return this.sql<{ at: number | null }>`SELECT MIN(delete_at_ms) AS at FROM volumes WHERE delete_at_ms IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM volume_attachments WHERE volume_id = volumes.id)`[0]?.at ?? null;
  }

  async onAlarm(nowMs: number): Promise<void> {
    const due = this.sql<{ id: string }>`SELECT id FROM volumes WHERE delete_at_ms <= ${nowMs}
      AND NOT EXISTS (SELECT 1 FROM volume_attachments WHERE volume_id = volumes.id)`;
    for (const { id } of due) {
      // Asked again in the turn the deletion's transaction runs in: a payment during the deletion before may have ended the grace.
      if (this.sql`SELECT 1 FROM volumes WHERE id = ${id} AND delete_at_ms <= ${nowMs}`.length === 0) continue;
      const deleted = await this.store.handle({ op: "delete", volume: id });
      if (!deleted.ok) log("warn", "volume_grace_delete_refused", { volume_id: id, message: deleted.message });
    }
  }
}
