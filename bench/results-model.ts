// The shape of a benchmark run's results: figures measured on our proxy and on the baselines of the
// same run, grouped in sections, plus target verdicts and the machine they ran on.

/** Baselines a figure can be compared with (README of the bench: docs/benchmarks.md). */
export const BASELINES = {
  /** The minimal server (bench/baselines/minimal-server.ts). */
  direct: "(a) direct",
  /** The instance's dev container itself, on its host port: our proxy's upstream. */
  container: "(a′) container",
  nginx: "(b) nginx",
  passthrough: "(c) worker",
  noop: "noop route",
  /** The same bytes or round trip through our own path proxy (for SSH, which has no other baseline). */
  proxied: "(d) proxied",
  /** The same R2 objects read directly with presigned GETs (the volumes suite). */
  objects: "(e) objects",
  /** A Durable Object relaying each request to a WebSocket peer with none of our code (bench/floor; the ceiling suite). */
  floor: "(f) bare relay",
} as const;
export type BaselineKey = keyof typeof BASELINES;

export type Better = "lower" | "higher";

export interface Figure {
  /** Stable id, used by the targets and in the JSON: "throughput.download". */
  id: string;
  label: string;
  unit: string;
  better: Better;
  /** Through our service; null when it could not be measured. */
  ours: number | null;
  /** The same quantity on each baseline taken; null when that baseline was unavailable. */
  baselines: Partial<Record<BaselineKey, number | null>>;
  /** False for figures where a ratio means nothing (CPU shares that are zero on some routes). */
  ratios?: boolean;
}

export interface Section {
  id: string;
  title: string;
  /** Which baseline columns the section's table shows. */
  baselineKeys: BaselineKey[];
  figures: Figure[];
  /** What was measured and how, and anything that went wrong. */
  notes: string[];
}

export type TargetStatus = "pass" | "fail" | "unavailable";

export interface TargetResult {
  id: string;
  description: string;
  status: TargetStatus;
  /** The numbers behind the verdict. */
  detail: string;
}

export interface MachineInfo {
  cpu_model: string;
  cores: number;
  memory_gb: number;
  node_version: string;
  os: string;
  load_average_1m: number;
  date: string;
}

export interface BenchResult {
  mode: "quick" | "full";
  machine: MachineInfo;
  settings: Record<string, number | string | boolean>;
  sections: Section[];
  targets: TargetResult[];
  duration_s: number;
}
