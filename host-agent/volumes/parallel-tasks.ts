// At most `limit` transfers at once, started as the caller produces them: `add` waits for a free
// slot, so a save reading files faster than it uploads holds at most `limit` chunks in memory. The
// first failure stops further adds; `done` waits for what runs and throws it.
export class ParallelTasks {
  readonly #limit: number;
  readonly #running = new Set<Promise<void>>();
  #failure: { error: unknown } | null = null;

  constructor(limit: number) {
    this.#limit = limit;
  }

  async add(task: () => Promise<void>): Promise<void> {
    this.#throwIfFailed();
    while (this.#running.size >= this.#limit) {
      await Promise.race(this.#running);
      this.#throwIfFailed();
    }
    const running: Promise<void> = task()
      .catch((error: unknown) => {
        this.#failure ??= { error };
      })
      .finally(() => this.#running.delete(running));
    this.#running.add(running);
  }

  /** Waits for every task started; throws the first failure. */
  async done(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running);
    this.#throwIfFailed();
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure.error;
  }
}
