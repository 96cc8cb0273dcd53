// Why this host takes no new instances right now: each source (the tenant firewall, disk limits)
// sets or clears its own reason. The agent reports the whole as `degraded` (in its hello, and in a
// `health` message when it changes), and refuses creates and starts while it is not "".
export class HostHealth {
  readonly #reasons = new Map<string, string>();
  readonly #listeners: ((degraded: string) => void)[] = [];

  /** Sets `source`'s reason, or clears it with null; listeners hear of a change of the whole. */
  set(source: string, reason: string | null): void {
    const before = this.degraded();
    if (reason === null) this.#reasons.delete(source);
    else this.#reasons.set(source, reason);
    const after = this.degraded();
    if (after !== before) for (const listener of this.#listeners) listener(after);
  }

  /** Every reason, "; "-separated; "" when the host is healthy. */
  degraded(): string {
    return [...this.#reasons.values()].join("; ");
  }

  onChange(listener: (degraded: string) => void): void {
    this.#listeners.push(listener);
  }
}
