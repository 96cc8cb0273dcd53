// When each of this machine's instances was last used, for the idle stop: proxied requests, WebSockets,
// web app traffic, SSH connections and the dashboard's terminals, all streams through this object
// (each counts as it opens, while it is open and as it closes), and when the host last came back (a
// host away does not count as idle: the clock of every instance on it starts again).
//
// A write per request would cost a row per proxied request: the stored time is written at most once
// a minute per instance, and it is written AHEAD, as "active until now + a minute". What is stored is
// therefore never earlier than the last use, even when this object is evicted and forgets what it
// held only in memory: an idle stop may come up to a minute late, never early. While this object
// lives on from its own write, it knows every use since, and answers with the exact time instead.
import { clock } from "../../core/clock.ts";
import type { Sql } from "../sql.ts";

/** How far ahead a stored time is written, and so how often at most it is written per instance. */
export const ACTIVITY_WRITE_AHEAD_MS = 60_000;

/** The row that holds when the host last came back (instance ids start `i-`). */
const HOST = "host";

export class InstanceActivity {
  private readonly sql: Sql;
  /** Per instance (and HOST): the latest use seen by this instance of the object, and what is stored. */
  private readonly seen = new Map<string, number>();
  private readonly stored = new Map<string, number>();
  /** Subjects whose stored time this instance of the object wrote: `seen` is exact for them. */
  private readonly exact = new Set<string>();
  /** Streams open now per instance: in memory, as the streams themselves are. */
  private readonly open = new Map<string, number>();

  constructor(sql: Sql) {
    this.sql = sql;
    sql`CREATE TABLE IF NOT EXISTS activity (subject TEXT PRIMARY KEY, active_ms INTEGER NOT NULL)`;
  }

  /** The instance was used now (the call for anything that carries traffic to it). */
  touch(instanceId: string): void {
    this.mark(instanceId, clock.now());
  }

  /** A stream of the instance opened: it counts as used until `streamClosed`. */
  streamOpened(instanceId: string): void {
    this.open.set(instanceId, (this.open.get(instanceId) ?? 0) + 1);
    this.touch(instanceId);
  }

  streamClosed(instanceId: string): void {
    const left = (this.open.get(instanceId) ?? 1) - 1;
    if (left > 0) this.open.set(instanceId, left);
    else this.open.delete(instanceId);
    this.touch(instanceId);
  }

  /** The host came back after being away: idle time on it starts again now. */
  hostReturned(): void {
    const nowMs = clock.now();
    this.seen.set(HOST, nowMs);
    this.write(HOST, nowMs);
  }

  /** Whether a stream of the instance is open now. */
  inUse(instanceId: string): boolean {
    return (this.open.get(instanceId) ?? 0) > 0;
  }

  /** The latest time the instance (or the host's return) counts as activity; null when never. */
  lastActiveMs(instanceId: string): number | null {
    const times = [instanceId, HOST].flatMap((subject) => (this.exact.has(subject) ? [this.seen.get(subject)] : [this.seen.get(subject), this.storedOf(subject)]));
    const known = times.filter((t): t is number => t !== undefined);
    return known.length === 0 ? null : Math.max(...known);
  }

  /** The instance's data is gone (destroyed): its row goes too. */
  forget(instanceId: string): void {
    this.seen.delete(instanceId);
    this.stored.delete(instanceId);
    this.exact.delete(instanceId);
    this.sql`DELETE FROM activity WHERE subject = ${instanceId}`;
  }

  private mark(subject: string, nowMs: number): void {
    this.seen.set(subject, Math.max(this.seen.get(subject) ?? nowMs, nowMs));
    if ((this.storedOf(subject) ?? -Infinity) < nowMs) this.write(subject, nowMs + ACTIVITY_WRITE_AHEAD_MS);
  }

  private write(subject: string, activeMs: number): void {
    this.sql`INSERT INTO activity (subject, active_ms) VALUES (${subject}, ${activeMs})
             ON CONFLICT (subject) DO UPDATE SET active_ms = excluded.active_ms`;
    this.stored.set(subject, activeMs);
    this.exact.add(subject);
  }

  private storedOf(subject: string): number | undefined {
    if (!this.stored.has(subject)) {
      const [row] = this.sql<{ active_ms: number }>`SELECT active_ms FROM activity WHERE subject = ${subject}`;
      if (row) this.stored.set(subject, row.active_ms);
    }
    return this.stored.get(subject);
  }
}
