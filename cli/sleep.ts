// Waiting between polls, cut short when the user interrupts (Ctrl-C).
import { setTimeout as delay } from "node:timers/promises";

/** Resolves false when `signal` aborted the wait. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return delay(ms, true, { signal }).catch(() => false);
}

/** An AbortSignal for SIGINT (Ctrl-C) and SIGTERM, so a long-running command can end cleanly. */
export function interrupted(): AbortSignal {
  const controller = new AbortController();
  const abort = () => controller.abort();
  process.once("SIGINT", abort);
  process.once("SIGTERM", abort);
  return controller.signal;
}
