// AccountDO -> MachineDO desired-state changes, kept until the MachineDO acknowledges them.
// Retried with backoff by the alarm; the MachineDO ignores a generation it has already seen.
import type { DesiredStateChange } from "../object-messages.ts";
import type { Sql } from "../sql.ts";

export interface OutboxRow {
  seq: number;
  machine_id: number;
  instance_id: string;
  desired: DesiredStateChange["desired"];
  generation: number;
  attempts: number;
  next_ms: number;
}

export function enqueueDesired(sql: Sql, machineId: number, change: DesiredStateChange, nowMs: number): void {
  sql`INSERT INTO outbox (machine_id, instance_id, desired, generation, attempts, next_ms)
      VALUES (${machineId}, ${change.instance_id}, ${change.desired}, ${change.generation}, 0, ${nowMs})`;
}

export function dueOutbox(sql: Sql, nowMs: number): OutboxRow[] {
  return sql<OutboxRow>`SELECT * FROM outbox WHERE next_ms <= ${nowMs} ORDER BY seq`;
}

export function nextOutboxMs(sql: Sql): number | null {
  const [row] = sql<{ next: number | null }>`SELECT MIN(next_ms) AS next FROM outbox`;
  return row?.next ?? null;
}

export function acknowledge(sql: Sql, seqs: number[]): void {
  for (const seq of seqs) sql`DELETE FROM outbox WHERE seq = ${seq}`;
}

export function postpone(sql: Sql, machineId: number, nowMs: number): void {
  // Capped exponential backoff: 1 s, 2 s, 4 s ... 60 s.
  sql`UPDATE outbox SET attempts = attempts + 1,
        next_ms = ${nowMs} + MIN(60000, 1000 * (1 << MIN(attempts, 6)))
      WHERE machine_id = ${machineId}`;
}
