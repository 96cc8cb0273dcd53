// What the agent does with an error nothing caught. One process carries every tenant's streams on the
// host, so Node's default (print and exit) turns one stream's fault into every tenant's outage and the
// machine's absence until systemd restarts it. Such an error is logged with what is known of it and
// the agent goes on: each stream guards its own tenant's inputs (ssh/client-values.ts, the protocol's
// schemas), and a fault that escapes one of them ends at most that stream's work. The agent exits
// only where its own code decides it cannot go on (GPU discovery failing, a shutdown that fails),
// never on a tenant's say.
import { errorMessage, type Logger } from "./log.ts";

/** Logs uncaught exceptions and unhandled rejections instead of exiting, for the rest of the process's life. */
export function logUncaughtFaults(log: Logger): void {
  process.on("uncaughtException", (error, origin) => log.error("uncaught exception", describe(error, { origin })));
  process.on("unhandledRejection", (reason) => log.error("unhandled rejection", describe(reason, {})));
}

function describe(error: unknown, fields: Record<string, unknown>): Record<string, unknown> {
  const code = (error as { code?: unknown } | null)?.code;
  return {
    ...fields,
    error: errorMessage(error),
    ...(typeof code === "string" ? { code } : {}),
    ...(error instanceof Error && error.stack ? { stack: error.stack.split("\n").slice(0, 8).join("\n") } : {}),
  };
}
