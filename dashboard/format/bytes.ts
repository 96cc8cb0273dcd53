// Sizes as storage is sold and priced: decimal units (a GB is 10^9 bytes, as a volume's size_gb is).
const UNITS = ["kB", "MB", "GB", "TB", "PB"];

/** 0 → "0 B", 512 → "512 B", 1_500_000 → "1.5 MB", 999_960 → "1.0 MB" (rounded as printed, never "1000.0 kB"). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  let value = bytes / 1000;
  let unit = 0;
  while (Math.round(value * 10) >= 10_000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(1)} ${UNITS[unit]}`;
}
