// Structured logs: one JSON object per line on stdout, `{"t", "level", "msg", ...context, ...fields}`.
// The context is what every line carries once it is known: the machine id from the server's welcome.
// Lines about one container carry its `instance_id`. Never the agent token.
export type LogFields = Record<string, unknown>;

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** Merges `fields` into every later line (the welcome's `machine_id`). */
  addContext(fields: LogFields): void;
}

export function createLogger(write: (line: string) => void = (line) => process.stdout.write(line)): Logger {
  let context: LogFields = {};
  const emit = (level: string) => (msg: string, fields: LogFields = {}) =>
    write(`${JSON.stringify({ t: new Date().toISOString(), level, msg, ...context, ...fields })}\n`);
  return {
    info: emit("info"),
    warn: emit("warn"),
    error: emit("error"),
    addContext(fields) {
      context = { ...context, ...fields };
    },
  };
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
