// The soak's report logic: which errors a restart explains, how operations and errors are counted,
// the verdict, and the rendered tables (no timing assertions: times here are made up).
import { describe, expect, it } from "vitest";
import type { MachineInfo } from "../results-model.ts";
import { cutByRestart, summarizeOps, unexplainedFailures, type OpRecord, type RestartWindow } from "./soak-outcomes.ts";
import { renderSoakReport, soakPassed, unexpectedErrors, type SoakResult } from "./soak-report.ts";

const op = (name: string, machine: string | null, startMs: number, endMs: number, error: string | null = null): OpRecord => ({ op: name, machine, startMs, endMs, error });
const restart: RestartWindow = { machine: "dev-1", how: "SIGKILL", startMs: 1_000, endMs: 3_000 };

describe("errors a restart explains", () => {
  it("an operation on the restarted machine that ran during the restart, even partly", () => {
    expect(cutByRestart(op("proxy.download", "dev-1", 500, 1_200), [restart])).toBe(true);
    expect(cutByRestart(op("proxy.download", "dev-1", 2_000, 2_500), [restart])).toBe(true);
    expect(cutByRestart(op("proxy.download", "dev-1", 2_900, 4_000), [restart])).toBe(true);
  });

  it("not one before or after it, on another machine, or on the control plane alone", () => {
    expect(cutByRestart(op("proxy.download", "dev-1", 0, 999), [restart])).toBe(false);
    expect(cutByRestart(op("proxy.download", "dev-1", 3_001, 4_000), [restart])).toBe(false);
    expect(cutByRestart(op("api.launch", "dev-2", 1_500, 2_000), [restart])).toBe(false);
    expect(cutByRestart(op("api.me", null, 1_500, 2_000), [restart])).toBe(false);
  });

  it("a restart the machine never came back from explains everything after it", () => {
    expect(cutByRestart(op("proxy.sse", "dev-1", 60_000, 61_000), [{ ...restart, endMs: null }])).toBe(true);
  });
});

describe("counting", () => {
  it("counts operations and errors per operation, and errors by kind with how many were expected", () => {
    const records = [
      op("proxy.download", "dev-1", 0, 500),
      op("proxy.download", "dev-1", 900, 1_100, "network: terminated"),
      op("proxy.download", "dev-1", 1_100, 1_200, "HTTP 502 upstream_unavailable"),
      op("proxy.download", "dev-1", 5_000, 5_100, "network: terminated"),
      op("api.me", null, 1_500, 1_600, "HTTP 500 internal"),
      op("api.me", null, 1_700, 1_800),
    ];
    expect(summarizeOps(records, [restart])).toEqual({
      ops: [{ op: "api.me", count: 2, errors: 1 }, { op: "proxy.download", count: 4, errors: 3 }],
      errors: [
        { op: "api.me", error: "HTTP 500 internal", count: 1, expected: 0 },
        { op: "proxy.download", error: "network: terminated", count: 2, expected: 1 },
        { op: "proxy.download", error: "HTTP 502 upstream_unavailable", count: 1, expected: 1 },
      ],
    });
  });
});

describe("the failures no restart explains", () => {
  it("lists each, with the answer's detail, in the order they started", () => {
    const late = { ...op("proxy.sse", "dev-1", 9_000, 9_500, "HTTP 502 upstream_unavailable"), detail: "the host disconnected" };
    const records = [late, op("proxy.sse", "dev-1", 1_500, 2_500, "HTTP 502 upstream_unavailable"), op("api.me", null, 500, 600, "timeout"), op("api.me", null, 700, 800)];
    expect(unexplainedFailures(records, [restart])).toEqual([op("api.me", null, 500, 600, "timeout"), late]);
  });
});

const MACHINE: MachineInfo = { cpu_model: "Test CPU", cores: 2, memory_gb: 8, node_version: "22.0.0", os: "Linux 6", load_average_1m: 0.5, date: "2026-11-23T00:00:00.000Z" };

function result(overrides: Partial<SoakResult> = {}): SoakResult {
  return {
    machine: MACHINE,
    minutes: 3,
    durationS: 185,
    clients: ["1 download"],
    ops: [{ op: "proxy.download", count: 10, errors: 1 }],
    errors: [{ op: "proxy.download", error: "network: terminated", count: 1, expected: 1 }],
    unexplained: [],
    restarts: [{ atS: 60, machine: "dev-1", how: "SIGKILL", backAfterS: 2.25 }],
    rss: [{ atS: 0, mb: { workerd: 100, "dev-1 agent": 60 } }, { atS: 60, mb: { workerd: 101.5, "dev-1 agent": 58 } }],
    checks: [{ name: "ledgers", ok: true, detail: "2 accounts sum to their balances" }],
    ...overrides,
  };
}

describe("the verdict", () => {
  it("passes with every check held and only expected errors", () => {
    expect(unexpectedErrors(result())).toBe(0);
    expect(soakPassed(result())).toBe(true);
  });

  it("fails on one unexpected error, or one failed check", () => {
    const unexplained = result({ errors: [{ op: "api.me", error: "HTTP 500 internal", count: 2, expected: 1 }] });
    expect(unexpectedErrors(unexplained)).toBe(1);
    expect(soakPassed(unexplained)).toBe(false);
    expect(soakPassed(result({ checks: [{ name: "open streams", ok: false, detail: "dev-1: 2" }] }))).toBe(false);
  });
});

describe("the report", () => {
  it("renders every table and the result", () => {
    expect(renderSoakReport(result())).toBe(`npm run bench -- --soak — 2026-11-23T00:00:00.000Z, 3.1 min (asked: 3 min)
machine: Test CPU, 2 cores, 8 GB, Node 22.0.0, Linux 6, load 0.50 at start
clients: 1 download

== Operations
operation       count  errors
proxy.download     10       1

== Errors by kind (expected: the operation ran while its machine's agent was being restarted)
operation       error                count  expected  unexpected
proxy.download  network: terminated      1         1           0

== Agent restarts
at    agent  how      serving again after
1:00  dev-1  SIGKILL                2.3 s

== Memory: RSS in MB, a sample a minute
at    workerd  dev-1 agent
0:00    100.0         60.0
1:00    101.5         58.0
   · workerd worker: the Worker and its Durable Objects; workerd front: wrangler's entry proxy (local only); an agent: its own process (its containers apart), started over by each restart

== Checks
ok  ledgers  2 accounts sum to their balances

RESULT: PASS (0 unexpected errors, 0 failed checks)`);
  });

  it("lists each unexpected error with when it started, how long it took and what the answer said", () => {
    const text = renderSoakReport(result({
      unexplained: [
        { atS: 75, tookS: 0.25, op: "proxy.upload", machine: "dev-1", error: "HTTP 503", detail: "Service Unavailable" },
        { atS: 130, tookS: 90, op: "api.wait_running", machine: "dev-2", error: "timeout" },
      ],
    }));
    expect(text).toContain(`== Unexpected errors, each (at: when it started)
at    took    operation         machine  error     detail
1:15  0.3 s   proxy.upload      dev-1    HTTP 503  Service Unavailable
2:10  90.0 s  api.wait_running  dev-2    timeout

== Agent restarts`);
  });

  it("says so when nothing failed or restarted, and when a machine never came back", () => {
    const text = renderSoakReport(result({ errors: [], restarts: [] }));
    expect(text).toContain("== Errors by kind\nnone");
    expect(text).toContain("== Agent restarts\nnone");
    expect(renderSoakReport(result({ restarts: [{ atS: 125, machine: "dev-2", how: "SIGTERM", backAfterS: null }] }))).toContain("2:05  dev-2  SIGTERM   not before the end");
  });
});
