// Summary statistics for benchmark samples: percentiles (nearest rank), rates and rounding, kept free
// of I/O so they can be tested on known data.

export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((Math.min(Math.max(p, 0), 100) / 100) * sorted.length);
  return sorted[Math.max(rank, 1) - 1]!;
}

export function mean(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  return samples.reduce((sum, value) => sum + value, 0) / samples.length;
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

export function summarize(samples: readonly number[]): LatencySummary {
  return {
    count: samples.length,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    mean: mean(samples),
    max: samples.length === 0 ? Number.NaN : Math.max(...samples),
  };
}

/** Events per second. */
export function perSecond(count: number, elapsedMs: number): number {
  return elapsedMs > 0 ? (count * 1000) / elapsedMs : Number.NaN;
}

export const MB = 1024 * 1024;

/** Throughput in MB/s, MB being 2^20 bytes. */
export function megabytesPerSecond(bytes: number, elapsedMs: number): number {
  return elapsedMs > 0 ? bytes / MB / (elapsedMs / 1000) : Number.NaN;
}

/** Deviation of each gap between consecutive arrival times from the expected interval. */
export function jitter(arrivalsMs: readonly number[], intervalMs: number): number[] {
  const deviations: number[] = [];
  for (let i = 1; i < arrivalsMs.length; i++) deviations.push(Math.abs(arrivalsMs[i]! - arrivalsMs[i - 1]! - intervalMs));
  return deviations;
}

/** Rounds to a few significant digits so committed results do not churn on noise digits. */
export function roundSignificant(value: number, digits = 3): number {
  if (!Number.isFinite(value) || value === 0) return value;
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const exponent = digits - 1 - magnitude;
  // Dividing by an integer power of ten (rather than multiplying by a fraction) keeps results exact.
  return exponent >= 0 ? Math.round(value * 10 ** exponent) / 10 ** exponent : Math.round(value / 10 ** -exponent) * 10 ** -exponent;
}
