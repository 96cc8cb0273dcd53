// Send credit of one stream direction: a sender waits here until its peer has returned enough.
export class SendCredit {
  private available: number;
  private waiters: (() => void)[] = [];

  constructor(initial: number) {
    this.available = initial;
  }

  /** Resolves once `bytes` (at most one window) may be sent, and takes them. */
  async take(bytes: number): Promise<void> {
    while (this.available < bytes) await new Promise<void>((resolve) => this.waiters.push(resolve));
    this.available -= bytes;
  }

  grant(bytes: number): void {
    this.available += bytes;
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Wakes every waiter for good (the stream is gone); they then find the stream closed. */
  release(): void {
    this.grant(Number.MAX_SAFE_INTEGER / 2);
  }
}
