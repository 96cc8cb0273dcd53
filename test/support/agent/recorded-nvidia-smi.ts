// Recorded nvidia-smi query tables (host-agent/gpus/fixtures, see SOURCES.md) answered as nvidia-smi
// answers a narrower query: the asked fields projected out of the recorded columns, in the order
// asked, with `nounits` stripping the units. This is how one capture of every field stands in for
// the GPU's answer to our own query.
import { readFileSync } from "node:fs";

const FIXTURES = new URL("../../../host-agent/gpus/fixtures/", import.meta.url);

/** A recorded table without the capture's `# $ nvidia-smi ...` line: a header and one row per GPU. */
export function recordedTable(file: string): string {
  return readFileSync(new URL(file, FIXTURES), "utf8").split("\n").filter((line) => line !== "" && !line.startsWith("#")).join("\n");
}

/** The lines `--query-gpu=<fields> --format=csv,noheader,nounits` prints for the recorded GPUs. */
export function projectNoUnits(table: string, fields: readonly string[]): string[] {
  const [header = "", ...rows] = table.split("\n");
  const names = header.split(", ").map((name) => name.replace(/\s*\[[^\]]*\]$/, ""));
  const columnOf = (field: string) => {
    const at = names.indexOf(field === "clocks.sm" ? "clocks.current.sm" : field);
    if (at < 0) throw new Error(`the recorded table has no ${field} column`);
    return at;
  };
  return rows.map((row) => {
    const values = row.split(", ");
    return fields.map((field) => (values[columnOf(field)] ?? "").replace(/ (%|MiB|W|MHz)$/, "")).join(", ");
  });
}
