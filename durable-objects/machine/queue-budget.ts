// What clients' WebSocket messages may wait for in this MachineDO, queued for the agent's credit.
// workerd cannot stop reading a client's socket, so a client whose upstream does not read its
// messages makes them pile up here; and one object carries every stream of every tenant on the
// host, with 128 MB. A bound per stream alone let four such sockets fill it (they were 32 MiB each),
// resetting the object and everybody's streams. So what waits is bounded per stream, per account
// on this host, and in all; a message that would pass a bound closes its own stream (1008), never
// another's. The other way, what the agent sends is bounded by its own budget
// (host-agent/proxy/send-budget.ts).
//
// The MachineDO alone holds these queues (in its memory), so its count is exact.
import { AccountTotals } from "./account-totals.ts";

/**
 * One stream's queue: what an SSH connection may have in flight (10 channels of 2 MiB windows, the
 * agent's host-agent/ssh/channel-limits.ts) past its stream's 4 MiB credit window, and no more.
 */
export const STREAM_QUEUE_BYTES = 16 * 1024 * 1024;
/** One account's streams on this host together: one full stream and half as much again. */
export const ACCOUNT_QUEUE_BYTES = 24 * 1024 * 1024;
/** Every stream on this host together. */
export const MACHINE_QUEUE_BYTES = 32 * 1024 * 1024;

export class QueueBudget {
  readonly #queued = new AccountTotals();

  /**
   * Why `bytes` more of a stream of `accountId` that has `streamQueued` waiting would pass a bound:
   * the close reason to give, or null when they fit.
   */
  refusal(accountId: string, streamQueued: number, bytes: number): string | null {
    if (streamQueued + bytes > STREAM_QUEUE_BYTES) return "sending faster than the upstream reads";
    if (this.#queued.of(accountId) + bytes > ACCOUNT_QUEUE_BYTES) return "the account's sockets on this host send faster than their upstreams read";
    if (this.#queued.of() + bytes > MACHINE_QUEUE_BYTES) return "this host's sockets send faster than their upstreams read";
    return null;
  }

  /** Queued or, negative, sent on or dropped: the caller gives back exactly what it took. */
  change(accountId: string, bytes: number): void {
    this.#queued.change(accountId, bytes);
  }

  /** What waits: in all, or of one account. */
  queued(accountId?: string): number {
    return this.#queued.of(accountId);
  }
}
