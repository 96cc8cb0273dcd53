// Text for people and for scripts: exact dollar amounts, tables (aligned with a header on a
// terminal, tab-separated without one in a pipe, as gh prints them), JSON as the API sent it, and
// the one line saying a change was made.
import type { IoStreams } from "./iostreams.ts";

/** Micro-dollars as dollars, exact: at least cents, more digits only when the amount has them. */
export function dollars(micros: number): string {
  const sign = micros < 0 ? "-" : "";
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / 1_000_000);
  const fraction = String(abs % 1_000_000).padStart(6, "0").replace(/0{1,4}$/, "");
  return `${sign}$${whole}.${fraction}`;
}

/** Bytes in decimal units, as sizes are sold ("0 B", "512 B", "1.5 MB", "12.3 GB"). */
export function byteSize(bytes: number): string {
  const units = ["kB", "MB", "GB", "TB", "PB"];
  if (bytes < 1000) return `${bytes} B`;
  let value = bytes / 1000;
  let unit = 0;
  // Compared as it will print: 999.96 kB is 1.0 MB, not 1000.0 kB.
  while (Math.round(value * 10) >= 10_000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

export function printTable(io: IoStreams, header: string[], rows: string[][]): void {
  if (!io.isStdoutTty) {
    for (const row of rows) io.out(row.join("\t"));
    return;
  }
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ");
  io.out(line(header));
  for (const row of rows) io.out(line(row));
}

/** The API's JSON answer, unchanged apart from indentation. */
export function printJson(io: IoStreams, data: unknown): void {
  io.out(JSON.stringify(data, null, 2));
}

/**
 * The line saying a change was made: marked on a terminal, plain in a pipe (a script's log says what
 * happened), none with --quiet.
 */
export function printDone(io: IoStreams, text: string, { quiet }: { quiet?: true }): void {
  if (quiet) return;
  io.out(io.isStdoutTty ? `✓ ${text}` : text);
}
