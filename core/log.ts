// Structured logs of the control plane: one JSON object per line, `{"level", "msg", ...fields}`, with
// the ids of what the line is about where they apply. Never a credential in any field.
export type LogLevel = "info" | "warn" | "error";

/** The ids a line carries where they apply, under these names in every line of the service. */
export interface LogIds {
  request_id?: string;
  account_id?: string;
  instance_id?: string;
  machine_id?: number;
}

export type LogFields = LogIds & Record<string, unknown>;

/** The line itself; fields left undefined are left out. */
export function logLine(level: LogLevel, msg: string, fields: LogFields = {}): string {
  return JSON.stringify({ level, msg, ...fields });
}

// Each level through its own console method: Workers Logs files a line under the method's level, and
// `wrangler dev --log-level warn` shows warn and error lines only.
const WRITE: Record<LogLevel, (line: string) => void> = {
  info: (line) => console.log(line),
  warn: (line) => console.warn(line),
  error: (line) => console.error(line),
};

export function log(level: LogLevel, msg: string, fields: LogFields = {}): void {
  WRITE[level](logLine(level, msg, fields));
}

/** A thrown value as text for a log field: an Error's message, anything else as a string. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
