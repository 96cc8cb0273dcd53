// Reconnect delays: capped exponential backoff with full jitter (a random delay between 0 and the
// capped exponential), reset by the caller once a connection has proved stable.
export interface BackoffOptions {
  baseMs: number;
  capMs: number;
  random?: () => number;
}

export class Backoff {
  readonly #options: BackoffOptions;
  #attempt = 0;

  constructor(options: BackoffOptions) {
    this.#options = options;
  }

  nextDelayMs(): number {
    const { baseMs, capMs, random = Math.random } = this.#options;
    const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(this.#attempt, 30));
    this.#attempt++;
    return Math.floor(random() * ceiling);
  }

  reset(): void {
    this.#attempt = 0;
  }
}
