import { describe, expect, it } from "vitest";
import { formatRatio, formatValue, ratio, renderReport, renderSection, renderTargets } from "./report.ts";
import { resultsJson } from "./results-json.ts";
import type { BenchResult, Figure, Section } from "./results-model.ts";
import { evaluateTargets, TARGETS, type TargetSpec } from "./targets.ts";

const figure = (id: string, ours: number | null, baselines: Figure["baselines"], unit = "ms"): Figure => ({
  id, label: id, unit, better: "lower", ours, baselines,
});

const section = (figures: Figure[]): Section => ({ id: "s", title: "Section", baselineKeys: ["direct", "nginx", "passthrough"], figures, notes: ["a note"] });

describe("ratios", () => {
  it("is ours ÷ baseline", () => {
    expect(ratio(figure("x", 10, { passthrough: 4 }), "passthrough")).toBe(2.5);
  });

  it("is null when ours or the baseline is missing or zero, or the figure opts out", () => {
    expect(ratio(figure("x", null, { direct: 4 }), "direct")).toBeNull();
    expect(ratio(figure("x", 1, { direct: null }), "direct")).toBeNull();
    expect(ratio(figure("x", 1, {}), "nginx")).toBeNull();
    expect(ratio(figure("x", 1, { direct: 0 }), "direct")).toBeNull();
    expect(ratio({ ...figure("x", 1, { direct: 2 }), ratios: false }, "direct")).toBeNull();
  });
});

describe("formatting", () => {
  it("formats values by magnitude and missing ones as n/a", () => {
    expect(formatValue(12_345.6)).toBe("12,346");
    expect(formatValue(61.19)).toBe("61.2");
    expect(formatValue(0.456)).toBe("0.46");
    expect(formatValue(null)).toBe("n/a");
    expect(formatValue(Number.NaN)).toBe("n/a");
  });

  it("formats ratios with a ×", () => {
    expect(formatRatio(0.1234)).toBe("0.12×");
    expect(formatRatio(29.81)).toBe("29.8×");
    expect(formatRatio(null)).toBe("");
  });

  it("a section is a header row, one aligned row per figure with value (ratio) per baseline, then its notes", () => {
    const text = renderSection(section([
      { ...figure("download", 61.2, { direct: 377, nginx: null, passthrough: 494 }, "MB/s"), label: "download 64 MB", better: "higher" },
    ]));
    expect(text.split("\n")).toEqual([
      "== Section",
      "figure          unit  ours   (a) direct  (b) nginx   (c) worker",
      "download 64 MB  MB/s  61.2  377 (0.16×)        n/a  494 (0.12×)",
      "   · a note",
    ]);
  });
});

describe("targets", () => {
  const specs: TargetSpec[] = [
    { id: "r", description: "ratio ≥ 0.5", kind: "ratio_at_least", figure: "t.down", baseline: "passthrough", factor: 0.5 },
    { id: "m", description: "ratio ≤ 2", kind: "ratio_at_most", figure: "t.lat", baseline: "passthrough", factor: 2 },
    { id: "e", description: "excess ≤ 5", kind: "excess_at_most", figure: "t.first", baseline: "direct", limit: 5 },
    { id: "a", description: "≥ 1000", kind: "at_least", figure: "t.rps", limit: 1000 },
    { id: "b", description: "≤ 64", kind: "at_most", figure: "t.mem", limit: 64 },
    { id: "u", description: "not measured", kind: "at_most", figure: "t.absent", limit: 1 },
    { id: "n", description: "baseline missing", kind: "ratio_at_least", figure: "t.nonginx", baseline: "nginx", factor: 1 },
  ];
  const sections = [section([
    figure("t.down", 300, { passthrough: 500 }, "MB/s"),
    figure("t.lat", 9, { passthrough: 4 }),
    figure("t.first", 7, { direct: 2 }),
    figure("t.rps", 999, {}, "req/s"),
    figure("t.mem", 64, {}, "MB"),
    figure("t.nonginx", 1, { nginx: null }),
  ])];

  it("checks ratios, excesses and limits, and marks what was not measured unavailable", () => {
    expect(evaluateTargets(sections, specs).map((t) => [t.id, t.status])).toEqual([
      ["r", "pass"], ["m", "fail"], ["e", "pass"], ["a", "fail"], ["b", "pass"], ["u", "unavailable"], ["n", "unavailable"],
    ]);
  });

  it("says the numbers behind each verdict", () => {
    const [r, m, e] = evaluateTargets(sections, specs);
    expect(r!.detail).toBe("300 vs 500 MB/s = 0.60× (needs ≥ 0.5×)");
    expect(m!.detail).toBe("9.00 vs 4.00 ms = 2.25× (needs ≤ 2×)");
    expect(e!.detail).toBe("7.00 vs 2.00 ms = +5.00 ms (needs ≤ +5 ms)");
  });

  it("the issues' targets cover throughput, latency, rate, streaming, SSH, memory, the host ceiling and the control plane", () => {
    expect(TARGETS.map((t) => t.id)).toEqual([
      "throughput.download.vs_worker", "throughput.download.vs_direct", "throughput.upload.vs_worker", "throughput.upload.vs_direct",
      "latency.p50", "latency.rps64", "latency.rps64.vs_direct", "streaming.sse", "streaming.ttft", "ssh.download", "files.upload", "files.download", "ssh.echo",
      "memory.upload.workerd", "memory.upload.agent", "memory.slow_reader.workerd", "memory.slow_reader.agent",
      "ceiling.download.vs_worker", "ceiling.upload.vs_worker", "ceiling.rps64.vs_worker",
      "ceiling.memory.upload.workerd_worker", "ceiling.memory.upload.workerd_front", "ceiling.memory.upload.agent_process",
      "ceiling.memory.slow_reader.workerd_worker", "ceiling.memory.slow_reader.workerd_front", "ceiling.memory.slow_reader.agent_process",
      "ceiling.memory.first.upload.workerd_worker", "ceiling.memory.first.upload.workerd_front", "ceiling.memory.first.upload.agent_process",
      "ceiling.memory.first.slow_reader.workerd_worker", "ceiling.memory.first.slow_reader.workerd_front", "ceiling.memory.first.slow_reader.agent_process",
      "ceiling.request", "ceiling.download", "ceiling.upload",
      "control.me", "control.instance", "control.gpus",
    ]);
  });

  it("the target table counts what was met", () => {
    const text = renderTargets(evaluateTargets(sections, specs));
    expect(text.split("\n")[0]).toBe("== Targets: 3 of 7 met");
    expect(text).toContain("FAIL  ≥ 1000");
  });
});

describe("results JSON", () => {
  const result: BenchResult = {
    mode: "quick",
    machine: { cpu_model: "cpu", cores: 2, memory_gb: 23.6, node_version: "22.23.3", os: "Linux", load_average_1m: 0.123456, date: "2026-11-22T00:00:00.000Z" },
    settings: { transferBytes: 67108864, nginx: "nginx/1.22.1" },
    sections: [section([figure("t.lat", 10.6789, { direct: 0.35, passthrough: Number.NaN })])],
    targets: [],
    duration_s: 95.4321,
  };

  it("sorts keys at every level, rounds to three significant digits and writes NaN as null", () => {
    const parsed = JSON.parse(resultsJson(result)) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(["duration_s", "machine", "mode", "sections", "settings", "targets"]);
    expect(parsed.duration_s).toBe(95.4);
    expect(Object.keys(parsed.machine as object)).toEqual(["cores", "cpu_model", "date", "load_average_1m", "memory_gb", "node_version", "os"]);
    const [only] = (parsed.sections as { figures: Record<string, unknown>[] }[])[0]!.figures;
    expect(only).toEqual({ baselines: { direct: 0.35, passthrough: null }, better: "lower", id: "t.lat", label: "t.lat", ours: 10.7, unit: "ms" });
    expect(Object.keys(only!)).toEqual(["baselines", "better", "id", "label", "ours", "unit"]);
  });

  it("ends with a newline so the committed file diffs cleanly", () => {
    expect(resultsJson(result).endsWith("}\n")).toBe(true);
  });

  it("the printed report names the machine and every section", () => {
    const text = renderReport(result);
    expect(text).toContain("machine: cpu, 2 cores, 23.6 GB, Node 22.23.3, Linux, load 0.12 at start");
    expect(text).toContain("== Section");
    expect(text).toContain("== Targets: 0 of 0 met");
  });
});
