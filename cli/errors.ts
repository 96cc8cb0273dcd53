// How a failure reaches the user: one line on stderr and a non-zero exit status.
import { GpuApiError } from "../client/index.ts";

/** Exit status of a command line the parser refuses (unknown flag, missing argument). */
export const USAGE_EXIT = 2;

/** A failure the CLI explains itself (missing configuration, a bad flag value, an instance that failed). */
export class CliError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** The end of a command that ran another program (`gpu ssh`): its exit status becomes the CLI's, with no message of ours. */
export class ExitStatus extends Error {
  readonly exitCode: number;

  constructor(exitCode: number) {
    super(`exit status ${exitCode}`);
    this.exitCode = exitCode;
  }
}

/** The line that tells the user what went wrong. */
export function describeError(error: unknown, apiUrl: string | null): string {
  if (error instanceof GpuApiError) return `${error.message} (${error.error}, HTTP ${error.status})`;
  if (error instanceof CliError) return error.message;
  // fetch reports a refused or unresolvable address as a TypeError whose cause names it.
  if (error instanceof TypeError && error.cause instanceof Error) {
    return `cannot reach ${apiUrl ?? "the API"}: ${error.cause.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}
