// WebSocket close codes across the proxy: a code passes through unchanged when it may be sent in a
// close frame; codes that only report a state locally (1005 no status, 1006 abnormal closure, 1015
// TLS failure) or are unassigned may not be (RFC 6455 §7.4), and become a normal closure.

export const NORMAL_CLOSURE = 1000;
/** A client sent faster than its upstream reads, past what the proxy holds for one socket. */
export const POLICY_VIOLATION = 1008;
/** A data frame carries one whole message, so a bigger message cannot cross the proxy. */
export const MESSAGE_TOO_BIG = 1009;
/** The other end of the proxy failed. */
export const INTERNAL_ERROR = 1011;

export function mayBeSentInCloseFrame(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}

/** The code to send for a close the other end reported with `code`. */
export function sendableCloseCode(code: number): number {
  return mayBeSentInCloseFrame(code) ? code : NORMAL_CLOSURE;
}

/** The part of a WebSocket (workerd's or the `ws` package's) that closing needs. */
export interface ClosableSocket {
  close(code?: number, reason?: string): void;
}

/** Closes with a sendable code, never throwing: a socket already closed has nothing left to hear. */
export function closeQuietly(socket: ClosableSocket, code: number, reason: string): void {
  try {
    socket.close(sendableCloseCode(code), reason);
  } catch {
    // Already closed by the other side.
  }
}
