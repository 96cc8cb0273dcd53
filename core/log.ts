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

const RANK: Record<LogLevel, number> = { info: 0, warn: 1, error: 2 };
let least: LogLevel = "info";

/**
 * The least level written from now on in this isolate: the LOG_LEVEL var, which each entry (the
 * Worker's fetch, each object's constructor) hands over as it gets it. Anything but "warn" or "error"
 * writes every line, so a mistyped setting never silences the log. Where a line below it would only
 * be thrown away unseen (wrangler dev at `--log-level warn`, every stack ours starts), writing it
 * still cost the Worker's thread and wrangler's processes (docs/benchmarks.md, eighth round).
 */
export function useLogLevel(setting: string | undefined): void {
  least = setting === "warn" || setting === "error" ? setting : "info";
}

/** Whether a line of `level` is written: for a caller whose fields cost something to gather. */
export function writes(level: LogLevel): boolean {
  return RANK[level] >= RANK[least];
}

export function log(level: LogLevel, msg: string, fields: LogFields = {}): void {
  if (writes(level)) WRITE[level](logLine(level, msg, fields));
}

/** A thrown value as text for a log field: an Error's message, anything else as a string. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
