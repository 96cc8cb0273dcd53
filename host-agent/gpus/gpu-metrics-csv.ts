// What the agent asks nvidia-smi every sampling interval, and the parsers of its answer: the lines
// of our own query (`noheader,nounits`, fields in GPU_METRICS_FIELDS order), and a table with a
// header (what people publish, units and extra fields included), both pure functions of the text.
import type { GpuSample } from "../../protocol/messages.ts";

/** The query's fields in order; `clocks.sm` is the alias nvidia-smi heads `clocks.current.sm`. */
export const GPU_METRICS_FIELDS = [
  "index", "utilization.gpu", "memory.used", "memory.total", "power.draw", "power.limit", "temperature.gpu", "clocks.sm",
] as const;

type MetricsField = (typeof GPU_METRICS_FIELDS)[number];

/** The arguments of the one long-lived nvidia-smi: our fields every `intervalMs`, one line per GPU. */
export function gpuMetricsArgs(intervalMs: number): string[] {
  return [`--query-gpu=${GPU_METRICS_FIELDS.join(",")}`, "--format=csv,noheader,nounits", "-lms", String(intervalMs)];
}

/** Names nvidia-smi prints in a header for a field asked under another name. */
const HEADER_ALIASES: Record<string, MetricsField> = { "clocks.current.sm": "clocks.sm" };

/**
 * One line of our query, or why not (nvidia-smi prints a sentence instead when the driver is gone).
 * Values nvidia-smi cannot give (`[N/A]`, `[Not Supported]`, `[Unknown Error]`) become null.
 */
export function parseGpuMetricsLine(line: string): GpuSample | { error: string } {
  const values = line.split(",").map((value) => value.trim());
  if (values.length !== GPU_METRICS_FIELDS.length) {
    return { error: `nvidia-smi metrics line has ${values.length} fields, not ${GPU_METRICS_FIELDS.length}: ${line.slice(0, 120)}` };
  }
  return toSample(new Map(GPU_METRICS_FIELDS.map((field, i) => [field, values[i] ?? ""])), line);
}

/**
 * A table as `--format=csv` prints it: a header line naming the fields (with units, `utilization.gpu [%]`),
 * then a line per GPU with units on the values (`100 %`, `631.95 W`) or not. Any field set that
 * includes ours; the others are ignored. Throws when the header lacks one of ours or a row is short.
 */
export function parseGpuMetricsTable(text: string): GpuSample[] {
  const [header, ...rows] = text.split(/\r?\n/).filter((line) => line.trim() !== "");
  if (header === undefined) return [];
  const names = header.split(",").map((name) => headerField(name));
  const missing = GPU_METRICS_FIELDS.filter((field) => !names.includes(field));
  if (missing.length > 0) throw new Error(`nvidia-smi table has no ${missing.join(", ")} column`);
  return rows.map((row) => {
    const values = row.split(",").map((value) => value.trim());
    if (values.length !== names.length) throw new Error(`nvidia-smi table row has ${values.length} fields, the header ${names.length}`);
    const sample = toSample(new Map(names.map((name, i) => [name, values[i] ?? ""])), row);
    if ("error" in sample) throw new Error(sample.error);
    return sample;
  });
}

function toSample(values: Map<string, string>, line: string): GpuSample | { error: string } {
  const index = values.get("index") ?? "";
  if (!/^\d+$/.test(index)) return { error: `nvidia-smi metrics line does not start with a GPU index: ${line.slice(0, 120)}` };
  const read = (field: MetricsField) => readingOf(values.get(field) ?? "");
  return {
    index: Number(index),
    util_percent: read("utilization.gpu"),
    memory_used_mib: read("memory.used"),
    memory_total_mib: read("memory.total"),
    power_w: read("power.draw"),
    power_limit_w: read("power.limit"),
    temperature_c: read("temperature.gpu"),
    sm_clock_mhz: read("clocks.sm"),
  };
}

/** `utilization.gpu [%]` → `utilization.gpu`; aliases to the name we ask by. */
function headerField(name: string): string {
  const bare = name.trim().replace(/\s*\[[^\]]*\]$/, "");
  return HEADER_ALIASES[bare] ?? bare;
}

/** `631.95`, `631.95 W`, `100 %`, `19818 MiB`, `59 C` → the number; `[N/A]` and any other text → null. */
function readingOf(value: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(?:\s*(?:%|MiB|W|MHz|C))?$/.exec(value);
  return match ? Number(match[1]) : null;
}
