// The types of parse-prometheus-text-format (it ships none): its prom2json-shaped answer for counters and gauges.
declare module "parse-prometheus-text-format" {
  export interface ParsedFamily {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "SUMMARY" | "HISTOGRAM" | "UNTYPED";
    /** Each sample; its value as written (e.g. "0.97"), its labels unescaped. */
    metrics: { labels?: Record<string, string>; value: string }[];
  }
  /** Throws on a line the text format does not allow. */
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
