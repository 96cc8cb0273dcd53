// Send credit of one stream direction: a sender waits here until its peer has returned enough.
export class SendCredit {
  private available: number;
  private waiters: (() => void)[] = [];

  constructor(initial: number) {
    this.available = initial;
  }

  /** Resolves once at least one byte may be sent; takes up to `bytes` and returns how many. */
  async take(bytes: number): Promise<number> {
    while (this.available <= 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
    const granted = Math.min(bytes, this.available);
    this.available -= granted;
    return granted;
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
