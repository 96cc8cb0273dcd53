// Structured logs: one JSON object per line on stdout, `{"t", "level", "msg", ...fields}`.
export type LogFields = Record<string, unknown>;

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

export function createLogger(write: (line: string) => void = (line) => process.stdout.write(line)): Logger {
  const emit = (level: string) => (msg: string, fields: LogFields = {}) =>
    write(`${JSON.stringify({ t: new Date().toISOString(), level, msg, ...fields })}\n`);
  return { info: emit("info"), warn: emit("warn"), error: emit("error") };
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
