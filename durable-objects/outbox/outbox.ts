// A transactional outbox: messages to other Durable Objects, written in the same transaction as the
// change they describe and kept in the sender's `outbox` table until the destination acknowledges them.
// Delivery is per destination and in order: a destination's whole queue goes together whenever any
// of it is due, so a receiver that skips sequence numbers it has already seen never loses an older
// message. Failures are retried with capped exponential backoff on the object's single alarm.
import { log } from "../../core/log.ts";
import type { Sql } from "../sql.ts";
import type { AlarmCapability } from "./single-alarm.ts";

/** A message with its sequence number: assigned once when queued, increasing, kept across retries. */
export interface Queued<Message> {
  seq: number;
  message: Message;
}

export interface OutboxOptions<Message> {
  /** What the messages are, for logs ("report", "desired state"). */
  name: string;
  /** The clock queue and retry times are on. */
  now(): number;
  /** Sends one destination's queue, oldest first. Resolving acknowledges it; throwing retries it later. */
  send(destination: string, batch: Queued<Message>[]): Promise<void>;
}

/** Retries wait 1 s, 2 s, 4 s ... doubling per failed attempt, and never more than this. */
export const MAX_RETRY_DELAY_MS = 60_000;

export function createOutboxTable(sql: Sql): void {
  sql`CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, destination TEXT NOT NULL, message TEXT NOT NULL,
    attempts INTEGER NOT NULL, next_ms INTEGER NOT NULL)`;
}

export class Outbox<Message> implements AlarmCapability {
  private readonly sql: Sql;
  private readonly options: OutboxOptions<Message>;
  private delivering: Promise<void> | null = null;
  private deliverAgain = false;

  constructor(sql: Sql, options: OutboxOptions<Message>) {
    this.sql = sql;
    this.options = options;
    createOutboxTable(sql);
  }

  /** Queues `message` for `destination`, due now. Call it in the transaction that makes the change. */
  enqueue(destination: string, message: Message): void {
    // The seq is the row id (AUTOINCREMENT: never reused, even after the queue empties).
    this.sql`INSERT INTO outbox (destination, message, attempts, next_ms)
             VALUES (${destination}, ${JSON.stringify(message)}, 0, ${this.options.now()})`;
  }

  /**
   * Sends everything due. Single flight: every state change asks for a delivery, and concurrent
   * deliveries would each resend every unacknowledged message (quadratic under a burst). One runs
   * at a time and goes round again if asked meanwhile; callers share its promise.
   */
  deliver(): Promise<void> {
    if (this.delivering) {
      this.deliverAgain = true;
      return this.delivering;
    }
    this.delivering = (async () => {
      try {
        do {
          this.deliverAgain = false;
          await this.deliverDue();
        } while (this.deliverAgain);
      } finally {
        this.delivering = null;
      }
    })();
    return this.delivering;
  }

  nextAlarmMs(): number | null {
    return this.sql<{ next: number | null }>`SELECT MIN(next_ms) AS next FROM outbox`[0]?.next ?? null;
  }

  onAlarm(): Promise<void> {
    return this.deliver();
  }

  onChange(): Promise<void> {
    return this.deliver();
  }

  private async deliverDue(): Promise<void> {
    for (const [destination, batch] of this.dueQueues()) {
      try {
        await this.options.send(destination, batch);
        this.acknowledge(destination, batch.at(-1)!.seq);
      } catch (error) {
        log("warn", `${this.options.name} delivery failed; will retry`, { destination, error: String(error) });
        this.postpone(destination);
      }
    }
  }

  /** The whole queue of every destination with anything due, oldest first. */
  private dueQueues(): Map<string, Queued<Message>[]> {
    const rows = this.sql<{ seq: number; destination: string; message: string }>`
      SELECT seq, destination, message FROM outbox
      WHERE destination IN (SELECT destination FROM outbox WHERE next_ms <= ${this.options.now()}) ORDER BY seq`;
    const queues = new Map<string, Queued<Message>[]>();
    for (const row of rows) {
      const queue = queues.get(row.destination) ?? [];
      queue.push({ seq: row.seq, message: JSON.parse(row.message) as Message });
      queues.set(row.destination, queue);
    }
    return queues;
  }

  /** Drops what the destination took: its queue up to `lastSeq` (anything newer was queued meanwhile). */
  private acknowledge(destination: string, lastSeq: number): void {
    this.sql`DELETE FROM outbox WHERE destination = ${destination} AND seq <= ${lastSeq}`;
  }

  private postpone(destination: string): void {
    this.sql`UPDATE outbox SET attempts = attempts + 1,
               next_ms = ${this.options.now()} + MIN(${MAX_RETRY_DELAY_MS}, 1000 * (1 << MIN(attempts, 6)))
             WHERE destination = ${destination}`;
  }
}
