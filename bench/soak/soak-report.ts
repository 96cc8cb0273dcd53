// The soak run's report as plain-text tables: what ran, errors by kind (expected: cut by an agent
// restart), the restarts, memory a sample a minute, and the end checks; and whether it passed.
import { renderColumns } from "../report.ts";
import type { MachineInfo } from "../results-model.ts";
import type { ErrorKind, OpSummary } from "./soak-outcomes.ts";

export interface RestartRecord {
  /** Seconds into the run. */
  atS: number;
  machine: string;
  how: string;
  /** Seconds until the machine served again; null if it did not before the run ended. */
  backAfterS: number | null;
}

export interface RssSample {
  /** Seconds into the run. */
  atS: number;
  /** MB (2^20 bytes) by process: "workerd worker", "workerd front", and one per agent. */
  mb: Record<string, number>;
}

/** A failed operation no restart explains, seconds into the run. */
export interface UnexplainedFailure {
  atS: number;
  tookS: number;
  op: string;
  machine: string | null;
  error: string;
  detail?: string;
}

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface SoakResult {
  machine: MachineInfo;
  minutes: number;
  durationS: number;
  clients: string[];
  ops: OpSummary[];
  errors: ErrorKind[];
  unexplained: UnexplainedFailure[];
  restarts: RestartRecord[];
  rss: RssSample[];
  checks: Check[];
}

export function unexpectedErrors(result: SoakResult): number {
  return result.errors.reduce((sum, kind) => sum + kind.count - kind.expected, 0);
}

/** Every end check held and no error went unexplained by a restart. */
export function soakPassed(result: SoakResult): boolean {
  return result.checks.every((check) => check.ok) && unexpectedErrors(result) === 0;
}

export function renderSoakReport(result: SoakResult): string {
  const m = result.machine;
  const sections = [
    [
      `npm run bench -- --soak — ${m.date}, ${formatMinutes(result.durationS)} (asked: ${result.minutes} min)`,
      `machine: ${m.cpu_model}, ${m.cores} cores, ${m.memory_gb} GB, Node ${m.node_version}, ${m.os}, load ${m.load_average_1m.toFixed(2)} at start`,
      `clients: ${result.clients.join("; ")}`,
    ].join("\n"),
    section("Operations", [["operation", "count", "errors"], ...result.ops.map((o) => [o.op, String(o.count), String(o.errors)])], 1),
    result.errors.length === 0
      ? "== Errors by kind\nnone"
      : section("Errors by kind (expected: the operation ran while its machine's agent was being restarted)", [
          ["operation", "error", "count", "expected", "unexpected"],
          ...result.errors.map((e) => [e.op, e.error, String(e.count), String(e.expected), String(e.count - e.expected)]),
        ]),
    ...(result.unexplained.length === 0 ? [] : [section("Unexpected errors, each (at: when it started)", [
      ["at", "took", "operation", "machine", "error", "detail"],
      ...result.unexplained.map((u) => [formatClock(u.atS), `${u.tookS.toFixed(1)} s`, u.op, u.machine ?? "-", u.error, u.detail ?? ""]),
    ], 6)]),
    result.restarts.length === 0
      ? "== Agent restarts\nnone"
      : section("Agent restarts", [
          ["at", "agent", "how", "serving again after"],
          ...result.restarts.map((r) => [formatClock(r.atS), r.machine, r.how, r.backAfterS === null ? "not before the end" : `${r.backAfterS.toFixed(1)} s`]),
        ], 3),
    rssSection(result.rss),
    section("Checks", result.checks.map((c) => [c.ok ? "ok" : "FAIL", c.name, c.detail]), 3),
    `RESULT: ${soakPassed(result) ? "PASS" : "FAIL"} (${unexpectedErrors(result)} unexpected errors, ${result.checks.filter((c) => !c.ok).length} failed checks)`,
  ];
  return sections.join("\n\n");
}

function rssSection(samples: readonly RssSample[]): string {
  const groups = [...new Set(samples.flatMap((s) => Object.keys(s.mb)))];
  const rows = samples.map((s) => [formatClock(s.atS), ...groups.map((g) => (s.mb[g] === undefined ? "" : s.mb[g].toFixed(1)))]);
  return [
    section("Memory: RSS in MB, a sample a minute", [["at", ...groups], ...rows], 1),
    "   · workerd worker: the Worker and its Durable Objects; workerd front: wrangler's entry proxy (local only); an agent: its own process (its containers apart), started over by each restart",
  ].join("\n");
}

function section(title: string, rows: string[][], leftColumns = 2): string {
  return [`== ${title}`, ...renderColumns(rows, leftColumns)].join("\n");
}

/** m:ss */
export function formatClock(seconds: number): string {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

function formatMinutes(seconds: number): string {
  return `${(seconds / 60).toFixed(1)} min`;
}
