// The commit-friendly JSON form of a run: keys sorted at every level, numbers rounded to three
// significant digits, NaN and Infinity as null, so re-runs differ only where results do.
import type { BenchResult } from "./results-model.ts";
import { roundSignificant } from "./stats.ts";

export function resultsJson(result: BenchResult): string {
  return `${JSON.stringify(normalize(result), null, 2)}\n`;
}

function normalize(value: unknown): unknown {
  if (typeof value === "number") return Number.isFinite(value) ? roundSignificant(value) : null;
  if (Array.isArray(value)) return value.map(normalize);
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, normalize(v)]));
  }
  return value;
}
