// What an SSH client may ask of the server, checked before anything acts on it. Every number in a
// channel request is a 32-bit field the client chose (RFC 4254), and every string any length it
// sends: `net.connect` throws at once on a port past 65535, Docker answers a terminal of 2^32 columns
// with an error, and a process's environment is copied into every exec. A request outside these
// bounds is refused (that channel or request only), never handed on.
import { TERMINAL_MAX_SIZE } from "../../protocol/messages.ts";

/** Variables a client may set (`env` requests): what OpenSSH's AcceptEnv passes by default, nothing that changes how programs load. */
const ALLOWED_ENV_NAME = /^(TERM|LANG|LC_[A-Z_]+)$/;
/** At most this many `env` requests are taken per session. */
export const MAX_ENV_VARIABLES = 32;
/** A locale or terminal name is short; a longer value is not one. */
export const MAX_ENV_VALUE_LENGTH = 256;
/** A terminal size of 0 leaves it to the server (RFC 4254 §6.2): sshd's default. */
const DEFAULT_TERMINAL = { cols: 80, rows: 24 };

export type TerminalSize = { cols: number; rows: number };

/** A TCP port a forward may name: 1–65535. */
export function isPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}

/** The terminal a `pty-req` asks for (0 for the default), or null when either side is past TERMINAL_MAX_SIZE. */
export function requestedTerminal(cols: number, rows: number): TerminalSize | null {
  const size = { cols: cols || DEFAULT_TERMINAL.cols, rows: rows || DEFAULT_TERMINAL.rows };
  return isTerminalSide(size.cols) && isTerminalSide(size.rows) ? size : null;
}

/** A `window-change` the terminal can follow, or null (ignored) when a side is 0 or past TERMINAL_MAX_SIZE. */
export function changedTerminal(cols: number, rows: number): TerminalSize | null {
  return isTerminalSide(cols) && isTerminalSide(rows) ? { cols, rows } : null;
}

/** Whether an `env` request may set `name` to `value`, with `taken` variables set already in its session. */
export function envAllowed(name: string, value: string, taken: number): boolean {
  return taken < MAX_ENV_VARIABLES && ALLOWED_ENV_NAME.test(name) && isEnvValue(value);
}

/** Whether `value` may stand in the environment: short, and without control characters (a terminal's name, a locale). */
export function isEnvValue(value: string): boolean {
  return value.length <= MAX_ENV_VALUE_LENGTH && !/[\0-\x1f\x7f]/.test(value);
}

function isTerminalSide(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= TERMINAL_MAX_SIZE;
}
