// What the soak's clients did, and which of their errors an agent restart explains: an operation on
// a machine whose agent was being restarted while it ran (from the kill until the machine serves
// again) may fail, cut by the restart; any other error is unexpected.

export interface OpRecord {
  /** e.g. "api.launch", "proxy.download". */
  op: string;
  /** The dev machine the operation depends on (its instance's host), or null for the control plane alone. */
  machine: string | null;
  startMs: number;
  endMs: number;
  /** Null when it succeeded; else what went wrong, short and stable enough to group by. */
  error: string | null;
  /** What the answer said beyond `error` (the API's message, an instance's status_message), if anything. */
  detail?: string;
}

export interface RestartWindow {
  machine: string;
  how: "SIGTERM" | "SIGKILL";
  /** When the agent was signalled. */
  startMs: number;
  /** When the machine served again (online, its instances answering); null if it never did. */
  endMs: number | null;
}

export interface OpSummary {
  op: string;
  count: number;
  errors: number;
}

export interface ErrorKind {
  op: string;
  error: string;
  count: number;
  /** How many of them overlapped a restart of their machine's agent. */
  expected: number;
}

/** An operation that was running while its machine's agent was being restarted. */
export function cutByRestart(record: OpRecord, windows: readonly RestartWindow[]): boolean {
  if (record.machine === null) return false;
  return windows.some((w) => w.machine === record.machine && record.startMs <= (w.endMs ?? Number.POSITIVE_INFINITY) && record.endMs >= w.startMs);
}

/** Per operation: how many ran and failed; per operation and error: how many, and how many were expected. */
export function summarizeOps(records: readonly OpRecord[], windows: readonly RestartWindow[]): { ops: OpSummary[]; errors: ErrorKind[] } {
  const ops = new Map<string, OpSummary>();
  const errors = new Map<string, ErrorKind>();
  for (const record of records) {
    const op = ops.get(record.op) ?? { op: record.op, count: 0, errors: 0 };
    op.count++;
    ops.set(record.op, op);
    if (record.error === null) continue;
    op.errors++;
    const key = `${record.op}\n${record.error}`;
    const kind = errors.get(key) ?? { op: record.op, error: record.error, count: 0, expected: 0 };
    kind.count++;
    if (cutByRestart(record, windows)) kind.expected++;
    errors.set(key, kind);
  }
  const byName = <T extends { op: string }>(a: T, b: T) => a.op.localeCompare(b.op);
  return {
    ops: [...ops.values()].sort(byName),
    errors: [...errors.values()].sort((a, b) => byName(a, b) || b.count - a.count || a.error.localeCompare(b.error)),
  };
}

/** The failed operations no restart explains, in the order they started. */
export function unexplainedFailures(records: readonly OpRecord[], windows: readonly RestartWindow[]): OpRecord[] {
  return records.filter((r) => r.error !== null && !cutByRestart(r, windows)).sort((a, b) => a.startMs - b.startMs);
}
