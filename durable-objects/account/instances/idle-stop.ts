// The idle stop: an instance with `idle_stop_minutes` whose GPUs all stayed under IDLE_GPU_PERCENT and
// which carried no traffic for that long is stopped, as a caller's stop would (billing ends, GPUs
// released, data kept; the webhook's status change fires from the row as for any stop).
//
// Authority: the AccountDO decides, since it owns the instance's setting and status and alone changes
// them; the MachineDO is the authority on what its host sees (samples, proxied and app traffic,
// whether the host is connected) and answers, when asked, since when an instance has been idle
// (machine/idle-watch.ts). This alarm capability asks each instance's machine when its check is due,
// then checks again exactly when the instance would have been idle long enough: one call per
// instance per `idle_stop_minutes` at most while it is in use. The answer is acted on only if,
// after the call, the instance is still running with the same setting: a stop, start or PATCH that
// came in meanwhile wins.
import type { Env } from "../../../core/env.ts";
import { machineOf } from "../../../core/env.ts";
import type { IdleAnswer, IdleQuery } from "../../contracts/idle-stop.ts";
import type { AlarmCapability } from "../../outbox/single-alarm.ts";
import type { Sql } from "../../sql.ts";
import type { InstanceActions } from "./instance-actions.ts";
import { findInstance, type InstanceRow } from "./instance-row.ts";

const MINUTE_MS = 60_000;
/** When a machine does not answer, the next try. */
const RETRY_MS = MINUTE_MS;

export interface IdleStopParts {
  sql: Sql;
  env: Env;
  transaction<T>(fn: () => T): T;
}

export class IdleStop implements AlarmCapability {
  private readonly parts: IdleStopParts;
  private readonly instances: InstanceActions;

  constructor(parts: IdleStopParts, instances: InstanceActions) {
    this.parts = parts;
    this.instances = instances;
  }

  nextAlarmMs(nowMs: number): number | null {
    // A check never made (a new setting, a run from before) is due now.
    return this.parts.sql<{ at: number | null }>`SELECT MIN(COALESCE(idle_check_ms, ${nowMs})) AS at FROM instances
      WHERE status = 'running' AND idle_stop_minutes IS NOT NULL AND machine_id IS NOT NULL`[0]?.at ?? null;
  }

  async onAlarm(nowMs: number): Promise<void> {
    const due = this.parts.sql<InstanceRow>`SELECT * FROM instances
      WHERE status = 'running' AND idle_stop_minutes IS NOT NULL AND machine_id IS NOT NULL
        AND (idle_check_ms IS NULL OR idle_check_ms <= ${nowMs})`;
    const byMachine = Map.groupBy(due, (row) => row.machine_id!);
    await Promise.all([...byMachine].map(async ([machineId, rows]) => {
      const queries = rows.map((row) => ({ instance_id: row.id, from_ms: windowStart(row, nowMs) }));
      const answer = await machineOf(this.parts.env, machineId).idleSince(queries).catch(() => null);
      this.parts.transaction(() => {
        for (const [n, row] of rows.entries()) this.decide(row, queries[n]!, answer, nowMs);
      });
    }));
  }

  /** Stops the instance if it was idle all through its window; otherwise sets its next check. */
  private decide(asked: InstanceRow, query: IdleQuery, answer: IdleAnswer | null, nowMs: number): void {
    const { sql } = this.parts;
    const row = findInstance(sql, asked.id);
    const minutes = row?.idle_stop_minutes ?? null;
    if (!row || row.status !== "running" || minutes === null || minutes !== asked.idle_stop_minutes || row.idle_from_ms !== asked.idle_from_ms) return;
    if (answer === null) {
      sql`UPDATE instances SET idle_check_ms = ${nowMs + RETRY_MS} WHERE id = ${row.id}`;
      return;
    }
    const since = answer[row.id] ?? null;
    if (since !== null && since <= query.from_ms && query.from_ms <= nowMs - minutes * MINUTE_MS) {
      this.instances.stopIdle(row, minutes);
      return;
    }
    // Not idle now: no stop before a whole window from now. Idle since `since`: a window from then.
    sql`UPDATE instances SET idle_check_ms = ${(since ?? nowMs) + minutes * MINUTE_MS} WHERE id = ${row.id}`;
  }
}

/** The start of the window that must have been idle: `idle_stop_minutes` ago, never before the run's start or the setting's change. */
function windowStart(row: InstanceRow, nowMs: number): number {
  const startedMs = row.started_at === null ? nowMs : Date.parse(row.started_at);
  return Math.max(nowMs - row.idle_stop_minutes! * MINUTE_MS, startedMs, row.idle_from_ms ?? -Infinity);
}
