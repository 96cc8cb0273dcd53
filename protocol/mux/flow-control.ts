// Credit-based flow control of one stream direction, the same at both ends: a sender may have at
// most one window of data unacknowledged, and a receiver returns credit in `window` frames as it
// hands data on, batched so that one frame returns at least WINDOW_UPDATE_THRESHOLD bytes.

/** Credit each side grants per stream and direction before the peer must wait for a `window`. */
export const INITIAL_WINDOW_BYTES = 4 * 1024 * 1024;
/** A receiver returns credit once it has consumed this much since its last `window` frame. */
export const WINDOW_UPDATE_THRESHOLD = 512 * 1024;

/**
 * What this end may still send. A sender that pushes checks `available` and `consume`s; one that
 * pulls from a body `take`s, waiting until the peer has returned enough.
 */
export class SendCredit {
  #available = INITIAL_WINDOW_BYTES;
  #waiters: (() => void)[] = [];

  get available(): number {
    return this.#available;
  }

  /** Spends credit the caller has checked is `available`. */
  consume(bytes: number): void {
    this.#available -= bytes;
  }

  /** Resolves once `bytes` (at most one window) may be sent, and spends them. */
  async take(bytes: number): Promise<void> {
    while (this.#available < bytes) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    this.#available -= bytes;
  }

  grant(bytes: number): void {
    this.#available += bytes;
    if (this.#waiters.length > 0) for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Wakes every waiter for good (the stream is gone); they then find the stream closed. */
  release(): void {
    this.grant(Number.MAX_SAFE_INTEGER / 2);
  }
}

/** The peer's data this end holds or has handed on, and the credit it owes back. */
export class ReceiveCredit {
  #outstanding = 0;
  #consumedUnreturned = 0;

  /** Records arriving bytes; false when the peer overran the credit it was given. */
  receive(bytes: number): boolean {
    this.#outstanding += bytes;
    return this.#outstanding <= INITIAL_WINDOW_BYTES;
  }

  /** The stream is over at this end: returns all the credit still owed (what was held is dropped), and owes nothing more. */
  settle(): number {
    const credit = this.#outstanding;
    this.#outstanding = 0;
    this.#consumedUnreturned = 0;
    return credit;
  }

  /** Records bytes handed on; returns the credit to send back now, or 0 to keep batching. */
  consume(bytes: number): number {
    this.#consumedUnreturned += bytes;
    if (this.#consumedUnreturned < WINDOW_UPDATE_THRESHOLD) return 0;
    const credit = this.#consumedUnreturned;
    this.#consumedUnreturned = 0;
    this.#outstanding -= credit;
    return credit;
  }
}
