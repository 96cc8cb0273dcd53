// What one end has sent on the agent's connection that the other end has not yet handed on,
// counted across streams. Each stream's window (flow-control.ts) bounds one stream, but the number
// of streams multiplies it, and every tenant on a host shares the connection and both its ends. So
// each end keeps this budget of what it sent: the connection as a whole, and each instance within
// it, has a limit, and a stream over it waits and goes on as `window` frames come back.
//
// Within its limit an instance has a share: past it, only a stream with less than `streamStart` out
// may send. Clients or upstreams that sit on full windows (downloads paused in a browser, uploads to
// a server that stopped reading) then hold the share, not the instance: its other streams still get
// their first `streamStart` out, more than the other end's credit batch (WINDOW_UPDATE_THRESHOLD),
// and go on as their own peers take their data. Streams that wait go first when room comes back.
//
// The agent keeps one for what it sends (host-agent/proxy/send-budget.ts), the MachineDO one for
// what it sends (durable-objects/machine/upload-budget.ts): each end alone knows what it sent and
// what came back, so each is the authority for its own.

export interface BudgetLimits {
  /** Everything unacknowledged on the connection. */
  connection: number;
  /** One instance's streams together, at most. */
  instance: number;
  /** One instance's streams together, before only streams just starting may send. */
  instanceShare: number;
  /** What a stream may have out past its instance's share. */
  streamStart: number;
}

/** One stream's count of unacknowledged bytes. */
export interface Spender {
  readonly instanceId: string;
  bytes: number;
}

export class UnacknowledgedBudget {
  readonly #limits: BudgetLimits;
  readonly #perInstance = new Map<string, number>();
  #total = 0;
  #waiters: (() => void)[] = [];

  constructor(limits: BudgetLimits) {
    this.#limits = limits;
  }

  /** A new stream's count, for traffic of `instanceId`. */
  spender(instanceId: string): Spender {
    return { instanceId, bytes: 0 };
  }

  /** Unacknowledged bytes: on the whole connection, or of one instance's streams. */
  unacknowledged(instanceId?: string): number {
    return instanceId === undefined ? this.#total : (this.#perInstance.get(instanceId) ?? 0);
  }

  /** Whether `spender`'s stream must wait before it sends more. */
  held(spender: Spender): boolean {
    const instance = this.#perInstance.get(spender.instanceId) ?? 0;
    if (this.#total >= this.#limits.connection || instance >= this.#limits.instance) return true;
    return instance >= this.#limits.instanceShare && spender.bytes >= this.#limits.streamStart;
  }

  /** `spender` sent `bytes` more or, negative, had them acknowledged (or dropped): room freed wakes the waiters. */
  change(spender: Spender, bytes: number): void {
    if (bytes === 0) return;
    spender.bytes += bytes;
    this.#total += bytes;
    const instance = (this.#perInstance.get(spender.instanceId) ?? 0) + bytes;
    if (instance > 0) this.#perInstance.set(spender.instanceId, instance);
    else this.#perInstance.delete(spender.instanceId);
    if (bytes < 0) this.#wake();
  }

  /** Calls back once room may have come back: the stream checks `held` again. */
  whenRoom(callback: () => void): void {
    this.#waiters.push(callback);
  }

  /**
   * Streams that waited go first, before the stream whose `window` freed the room sends again (its
   * frame is routed after the acknowledgement): else peers that read slowly, their windows refilled
   * at once, would keep a waiting stream of the same instance out for good. Each checks for itself
   * and waits again if there is still no room for it; room freed meanwhile (a stream ending) wakes those.
   */
  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }
}
