// The time every Durable Object reads, so tests can move it (billing, expiry, heartbeats). One
// clock per isolate: in tests all objects share the test's isolate and so one timeline; in
// production nothing moves it and it is the platform's time.
class Clock {
  private fixedAt: number | null = null;
  private offsetMs = 0;

  now(): number {
    return this.fixedAt ?? Date.now() + this.offsetMs;
  }

  /** Test hook: moves time forward. */
  advance(ms: number): void {
    if (this.fixedAt !== null) this.fixedAt += ms;
    else this.offsetMs += ms;
  }

  /** Test hook: stops time at its current value until `resume`, so sums come out exact. */
  freeze(): number {
    this.fixedAt = this.now();
    return this.fixedAt;
  }

  resume(): void {
    if (this.fixedAt !== null) this.offsetMs = this.fixedAt - Date.now();
    this.fixedAt = null;
  }
}

export type { Clock };
export const clock = new Clock();

export const iso = (ms: number) => new Date(ms).toISOString();
