// Times and records each operation of the soak's clients, none able to wait forever, and names each
// failure in the words the report groups errors by.
import type { OpRecord } from "./soak-outcomes.ts";

/** No operation waits longer than this (a launch included). */
const OP_TIMEOUT_MS = 90_000;

/** An operation's failure, in the words the report groups errors by, and what the answer said beyond them. */
export class OpFailure extends Error {
  readonly detail: string | undefined;

  constructor(message: string, detail?: string) {
    super(message);
    this.detail = detail;
  }
}

export class OpRecorder {
  readonly records: OpRecord[] = [];

  /** Runs and records one operation; true when it succeeded. */
  async run(op: string, machine: string | null, work: (signal: AbortSignal) => Promise<void>): Promise<boolean> {
    const startMs = Date.now();
    let error: string | null = null;
    let detail: string | undefined;
    try {
      await work(AbortSignal.timeout(OP_TIMEOUT_MS));
    } catch (caught) {
      error = describeError(caught);
      if (caught instanceof OpFailure) detail = caught.detail;
    }
    this.records.push({ op, machine, startMs, endMs: Date.now(), error, ...(detail === undefined ? {} : { detail }) });
    return error === null;
  }
}

function describeError(error: unknown): string {
  if (error instanceof OpFailure) return error.message;
  const name = (error as Error | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") return "timeout";
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  return `network: ${cause?.code ?? cause?.message ?? (error as Error).message}`;
}
