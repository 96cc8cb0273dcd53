// The launch timeout: a launch or start its host has not confirmed (`running`) within
// LAUNCH_TIMEOUT_MS becomes `error`, so no instance stays `creating` or `starting` forever. The
// deadline is set when the launch or start is made, on this object's clock, and nothing moves it:
// the host's progress (pulling, creating) does not. The host's MachineDO is told to stop the
// container (desired `stopped`, the next generation): it frees the GPUs, and stops a container that
// shows up later (a create that finishes, an agent that returns with it). Nothing is charged before
// `running`, so no money is held to give back. A `running` reported after the timeout does not
// revive the instance (reports.ts applies `running` only to `creating` and `starting`): it stays
// `error`, unbilled, until the user starts it again.
import { iso } from "../../../core/clock.ts";
import type { Env } from "../../../core/env.ts";
import type { AlarmCapability } from "../../outbox/single-alarm.ts";
import type { Sql } from "../../sql.ts";
import { addEvent, type InstanceRow } from "./instance-row.ts";
import type { MachineDirectives } from "../machine-directives.ts";
import { NO_READINESS } from "./port-readiness.ts";

/**
 * Long enough for a real first launch: pulling a 10 to 20 GB serving image (vLLM, SGLang) at a
 * modest 15 to 20 MB/s and unpacking it takes 15 to 25 minutes.
 */
export const DEFAULT_LAUNCH_TIMEOUT_MS = 30 * 60_000;

/** The var LAUNCH_TIMEOUT_MS, or the default when it is missing or not a positive number. */
export function launchTimeoutMs(env: Env): number {
  const configured = Number(env.LAUNCH_TIMEOUT_MS);
  return Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_LAUNCH_TIMEOUT_MS;
}

/** Why a launch or start was given up: the instance's status_message. */
export function launchTimeoutMessage(timeoutMs: number): string {
  return `the host did not start the container within ${duration(timeoutMs)}; its GPUs are released (start the instance to try again)`;
}

export interface LaunchTimeoutParts {
  sql: Sql;
  env: Env;
  transaction<T>(fn: () => T): T;
  directives: MachineDirectives;
}

export class LaunchTimeout implements AlarmCapability {
  private readonly parts: LaunchTimeoutParts;

  constructor(parts: LaunchTimeoutParts) {
    this.parts = parts;
  }

  nextAlarmMs(): number | null {
    return this.parts.sql<{ at: number | null }>`SELECT MIN(launch_deadline_ms) AS at FROM instances
      WHERE status IN ('creating', 'starting') AND machine_id IS NOT NULL`[0]?.at ?? null;
  }

  /** Gives up every launch and start past its deadline; the outbox (next on the alarm) tells their hosts. */
  onAlarm(nowMs: number): void {
    const overdue = this.parts.sql<InstanceRow>`SELECT * FROM instances
      WHERE status IN ('creating', 'starting') AND machine_id IS NOT NULL AND launch_deadline_ms <= ${nowMs}`;
    if (overdue.length === 0) return;
    const message = launchTimeoutMessage(launchTimeoutMs(this.parts.env));
    for (const row of overdue) this.parts.transaction(() => this.giveUp(row, message, nowMs));
  }

  private giveUp(row: InstanceRow, message: string, nowMs: number): void {
    const { sql } = this.parts;
    const generation = row.generation + 1;
    sql`UPDATE instances SET status = 'error', status_message = ${message}, generation = ${generation}, readiness = ${NO_READINESS}
        WHERE id = ${row.id}`;
    addEvent(sql, row.id, `Error: ${message}`, iso(nowMs));
    this.parts.directives.enqueue(String(row.machine_id!), { instance_id: row.id, desired: "stopped", generation });
  }
}

function duration(ms: number): string {
  if (ms % 60_000 === 0) return ms === 60_000 ? "1 minute" : `${ms / 60_000} minutes`;
  return ms === 1_000 ? "1 second" : `${ms / 1_000} seconds`;
}
