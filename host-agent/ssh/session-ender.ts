// Ends an SSH connection from the agent's side, saying why: its instance is being stopped or
// destroyed, or the agent itself is stopping. Each running session is told the reason on its stderr
// and its process is ended, so its channel closes as for any lost command (status 255, after its last
// output); then the connection is closed, so a client holding only forwarded ports (`ssh -N -L`)
// exits too instead of waiting on an instance that is gone. A session asked for after that is
// refused with the same reason.
import type { Writable } from "node:stream";

/** How long the sessions' processes have to end before the connection is closed under them. */
export const SESSIONS_END_WITHIN_MS = 3_000;

interface Running {
  stderr: Writable;
  kill: () => void;
}

export class SessionEnder {
  #reason: string | null = null;
  readonly #running = new Set<Running>();
  #closeConnection: () => void;

  /** `closeConnection`: until the SSH handshake is done, only the socket can be closed. */
  constructor(closeConnection: () => void) {
    this.#closeConnection = closeConnection;
  }

  /** The connection is established: it is closed the SSH way (a disconnect message, then the socket). */
  connected(closeConnection: () => void): void {
    this.#closeConnection = closeConnection;
  }

  /** Why the connection is ending, or null while it is not. */
  get reason(): string | null {
    return this.#reason;
  }

  /** A session's process runs (one started as the connection ends is ended at once); call the function returned once its channel has closed. */
  track(stderr: Writable, kill: () => void): () => void {
    const running = { stderr, kill };
    this.#running.add(running);
    if (this.#reason !== null) endSession(running, this.#reason);
    return () => {
      this.#running.delete(running);
      this.#closeWhenIdle();
    };
  }

  end(reason: string): void {
    if (this.#reason !== null) return;
    this.#reason = reason;
    for (const running of this.#running) endSession(running, reason);
    setTimeout(() => this.#closeConnection(), SESSIONS_END_WITHIN_MS).unref();
    this.#closeWhenIdle();
  }

  #closeWhenIdle(): void {
    if (this.#reason !== null && this.#running.size === 0) this.#closeConnection();
  }
}

function endSession({ stderr, kill }: Running, reason: string): void {
  stderr.write(`\r\n${reason}\r\n`);
  kill();
}
