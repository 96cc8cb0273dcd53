// Renders a run's results as plain-text tables: every figure with its ratio to each baseline of the
// same run (ours ÷ baseline), then the target verdicts.
import { BASELINES, type BaselineKey, type BenchResult, type Figure, type Section, type TargetResult } from "./results-model.ts";

/** ours ÷ baseline, or null when either is missing or the figure opts out of ratios. */
export function ratio(figure: Figure, baseline: BaselineKey): number | null {
  const base = figure.baselines[baseline];
  if (figure.ratios === false || !isNumber(figure.ours) || !isNumber(base) || base === 0) return null;
  return figure.ours / base;
}

export function formatValue(value: number | null | undefined): string {
  if (!isNumber(value)) return "n/a";
  const magnitude = Math.abs(value);
  if (magnitude >= 100) return Math.round(value).toLocaleString("en-US");
  if (magnitude >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function formatRatio(value: number | null): string {
  if (value === null) return "";
  return `${value >= 10 ? value.toFixed(1) : value.toFixed(2)}×`;
}

export function renderSection(section: Section): string {
  const header = ["figure", "unit", "ours", ...section.baselineKeys.map((key) => BASELINES[key])];
  const rows = section.figures.map((figure) => [
    figure.label,
    figure.unit,
    formatValue(figure.ours),
    ...section.baselineKeys.map((key) => {
      if (!(key in figure.baselines)) return "";
      const r = formatRatio(ratio(figure, key));
      return `${formatValue(figure.baselines[key])}${r ? ` (${r})` : ""}`;
    }),
  ]);
  const lines = [`== ${section.title}`, ...renderColumns([header, ...rows])];
  for (const note of section.notes) lines.push(`   · ${note}`);
  return lines.join("\n");
}

export function renderTargets(targets: readonly TargetResult[]): string {
  const mark = { pass: "PASS", fail: "FAIL", unavailable: "n/a " } as const;
  const passed = targets.filter((t) => t.status === "pass").length;
  return [
    `== Targets: ${passed} of ${targets.length} met`,
    ...renderColumns(targets.map((t) => [mark[t.status], t.description, t.detail])),
  ].join("\n");
}

export function renderReport(result: BenchResult): string {
  const m = result.machine;
  const head = [
    `npm run bench (${result.mode} mode) — ${m.date}, ${result.duration_s.toFixed(0)} s`,
    `machine: ${m.cpu_model}, ${m.cores} cores, ${m.memory_gb} GB, Node ${m.node_version}, ${m.os}, load ${m.load_average_1m.toFixed(2)} at start${m.load_average_1m >= 1 ? " (other processes were busy: expect noise)" : ""}`,
    "ours = through the proxy / API of the local stack; (ratio) = ours ÷ that baseline, measured in the same run",
  ].join("\n");
  return [head, ...result.sections.map(renderSection), renderTargets(result.targets)].join("\n\n");
}

/** Left-aligned first `leftColumns` columns (labels), right-aligned numbers after them. */
export function renderColumns(rows: string[][], leftColumns = 2): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i < leftColumns ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ").trimEnd());
}

function isNumber(value: number | null | undefined): value is number {
  return typeof value === "number" && Number.isFinite(value);
}
