// Prometheus' text exposition format (version 0.0.4): each family once, its HELP and TYPE lines then
// its samples, one per line. Label values escape backslash, double quote and line feed; HELP text
// escapes backslash and line feed. A sample whose value is unknown (null) is left out, not written as
// NaN: a graph shows a gap rather than a made-up value.

export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export interface Sample {
  labels: Record<string, string>;
  value: number | null;
}

export interface Family {
  /** [a-zA-Z_:][a-zA-Z0-9_:]*, as are label names. */
  name: string;
  help: string;
  type: "gauge" | "counter";
  samples: Sample[];
}

const escapeLabelValue = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
const escapeHelp = (text: string) => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");

function sampleLine(name: string, { labels, value }: Sample): string {
  const pairs = Object.entries(labels).map(([label, text]) => `${label}="${escapeLabelValue(text)}"`);
  return `${name}${pairs.length === 0 ? "" : `{${pairs.join(",")}}`} ${value}`;
}

/** The families as one exposition, ending in a line feed; a family without a known sample is still described. */
export function exposition(families: Family[]): string {
  return families
    .flatMap(({ name, help, type, samples }) => [
      `# HELP ${name} ${escapeHelp(help)}`,
      `# TYPE ${name} ${type}`,
      ...samples.filter((sample) => sample.value !== null).map((sample) => sampleLine(name, sample)),
    ])
    .map((line) => `${line}\n`)
    .join("");
}
