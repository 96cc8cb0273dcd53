// Credit-based flow control of one proxied stream (protocol/version.ts): what we may still send, and
// what we have consumed of the peer's data and owe back as `window` frames.
import { INITIAL_WINDOW_BYTES, WINDOW_UPDATE_THRESHOLD } from "../../protocol/version.ts";

/** Bytes the peer lets us send before it returns credit. */
export class SendWindow {
  #credit = INITIAL_WINDOW_BYTES;

  get available(): number {
    return this.#credit;
  }

  consume(bytes: number): void {
    this.#credit -= bytes;
  }

  grant(bytes: number): void {
    this.#credit += bytes;
  }
}

/** The peer's data we hold or have consumed; credit goes back in batches of at least the threshold. */
export class ReceiveWindow {
  #outstanding = 0;
  #consumedUnreturned = 0;

  /** Records arriving bytes; false when the peer overran the credit it was given. */
  receive(bytes: number): boolean {
    this.#outstanding += bytes;
    return this.#outstanding <= INITIAL_WINDOW_BYTES;
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
