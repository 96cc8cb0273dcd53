// A clock each Durable Object reads time from, so tests can move time (billing, expiry, heartbeats).
export class Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** Test hook: moves this object's time forward. */
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export const iso = (ms: number) => new Date(ms).toISOString();
