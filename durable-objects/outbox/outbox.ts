// A transactional outbox: messages to other Durable Objects, written in the same transaction as the
// change they describe and kept in the sender's `outbox` table until the destination acknowledges them.
// Delivery is per destination and in order: a destination's whole queue goes together whenever any
// of it is due, so a receiver that skips sequence numbers it has already seen never loses an older
// message; destinations are sent to side by side. Failures are retried with capped exponential
// backoff on the object's single alarm. A change that must be applied before its request is answered
// is delivered now and waited for (`deliverNow`).
import { errorText, log, type LogFields } from "../../core/log.ts";
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
  /** The ids a log line about `destination` carries: the sender's own and the destination's. */
  logIds?(destination: string): LogFields;
  /**
   * Called as a message is queued, in the change's own turn: the object arms its alarm there
   * (SingleAlarm.backstop), so a message whose immediate delivery a restart cut short is still sent.
   */
  queued?(): void;
}

/** Where a queued message has to arrive: its destination and its seq. */
export interface Delivery {
  destination: string;
  seq: number;
}

/** How many times `deliverNow` tries at once before leaving the rest to the alarm. */
export const IMMEDIATE_ATTEMPTS = 3;

/** Retries wait 1 s, 2 s, 4 s ... doubling per failed attempt, and never more than this. */
export const MAX_RETRY_DELAY_MS = 60_000;

/** The outbox owns its table: created here only, by the constructor or in place of an older one. */
function createOutboxTable(sql: Sql): void {
  sql`CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, destination TEXT NOT NULL, message TEXT NOT NULL,
    attempts INTEGER NOT NULL, next_ms INTEGER NOT NULL)`;
}

/**
 * For an object whose `outbox` table has an older shape: it becomes `outbox_legacy`, the shared table
 * is created, `moveRows` copies the old rows into it (oldest first, so they keep their order), and
 * the old table is dropped.
 */
export function replaceLegacyOutbox(sql: Sql, moveRows: () => void): void {
  sql`ALTER TABLE outbox RENAME TO outbox_legacy`;
  createOutboxTable(sql);
  moveRows();
  sql`DROP TABLE outbox_legacy`;
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
  enqueue(destination: string, message: Message): Delivery {
    // The seq is the row id (AUTOINCREMENT: never reused, even after the queue empties).
    const [row] = this.sql<{ seq: number }>`INSERT INTO outbox (destination, message, attempts, next_ms)
             VALUES (${destination}, ${JSON.stringify(message)}, 0, ${this.options.now()}) RETURNING seq`;
    this.options.queued?.();
    return { destination, seq: row!.seq };
  }

  /**
   * Delivers `deliveries` now, whatever their backoff, trying IMMEDIATE_ATTEMPTS times at once; true
   * when every one is acknowledged. What is still unacknowledged stays queued and the alarm retries it.
   */
  async deliverNow(deliveries: Delivery[]): Promise<boolean> {
    for (let attempt = 0; attempt < IMMEDIATE_ATTEMPTS; attempt++) {
      const waiting = deliveries.filter((delivery) => !this.isAcknowledged(delivery));
      if (waiting.length === 0) return true;
      for (const { destination } of waiting) {
        this.sql`UPDATE outbox SET next_ms = MIN(next_ms, ${this.options.now()}) WHERE destination = ${destination}`;
      }
      await this.deliver();
    }
    return deliveries.every((delivery) => this.isAcknowledged(delivery));
  }

  /** The last queued message of each destination that has one of `matching` still unacknowledged. */
  pending(matching: (message: Message) => boolean = () => true): Delivery[] {
    const last = new Map<string, number>();
    for (const row of this.sql<{ seq: number; destination: string; message: string }>`SELECT seq, destination, message FROM outbox ORDER BY seq`) {
      if (matching(JSON.parse(row.message) as Message)) last.set(row.destination, row.seq);
    }
    return [...last].map(([destination, seq]) => ({ destination, seq }));
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
    // One destination that is slow or down does not hold back the others.
    await Promise.all([...this.dueQueues()].map(async ([destination, batch]) => {
      try {
        await this.options.send(destination, batch);
        this.acknowledge(destination, batch.at(-1)!.seq);
      } catch (error) {
        log("warn", `${this.options.name} delivery failed; will retry`, { ...this.options.logIds?.(destination), destination, error: errorText(error) });
        this.postpone(destination);
      }
    }));
  }

  /** Acknowledgement drops a destination's queue up to the message it acknowledges, in order. */
  private isAcknowledged({ destination, seq }: Delivery): boolean {
    return this.sql`SELECT 1 FROM outbox WHERE destination = ${destination} AND seq <= ${seq} LIMIT 1`.length === 0;
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
