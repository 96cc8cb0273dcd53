// Ends an SSH connection from the agent's side, saying why: its instance is being stopped or
// destroyed, or the agent itself is stopping. Each running session is told the reason on its stderr
// and its process is ended, so its channel closes as for any lost command (status 255, after its last
// output), and a client whose sessions are over leaves by itself; then the connection is closed, so a
// client holding only forwarded ports (`ssh -N -L`) exits too instead of waiting on an instance that
// is gone. A session asked for after that is refused with the same reason.
import type { Writable } from "node:stream";

/** How long the sessions' processes have to end before the connection is closed under them. */
export const SESSIONS_END_WITHIN_MS = 3_000;

/**
 * How long a client has to leave by itself once its sessions have closed. Closed under it at once,
 * OpenSSH may exit on the disconnect before it has written the reason it was just sent.
 */
export const CLIENT_LEAVES_WITHIN_MS = 1_000;

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
      if (this.#reason !== null && this.#running.size === 0) this.#closeAfter(CLIENT_LEAVES_WITHIN_MS);
    };
  }

  end(reason: string): void {
    if (this.#reason !== null) return;
    this.#reason = reason;
    if (this.#running.size === 0) return this.#closeConnection();
    for (const running of this.#running) endSession(running, reason);
    this.#closeAfter(SESSIONS_END_WITHIN_MS);
  }

  #closeAfter(ms: number): void {
    setTimeout(() => this.#closeConnection(), ms).unref();
  }
}

function endSession({ stderr, kill }: Running, reason: string): void {
  stderr.write(`\r\n${reason}\r\n`);
  kill();
}
