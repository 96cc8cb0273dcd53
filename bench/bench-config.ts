// Sizes and counts per mode: quick (the default, well under 3 minutes on 2 cores) and --full.
import { MB } from "./stats.ts";

export interface BenchConfig {
  mode: "quick" | "full";
  /** Body size of each throughput run, each direction. */
  transferBytes: number;
  /** The file `gpu cp` moves each way in the ssh suite (the 1 GiB in --full). */
  copyBytes: number;
  /** Throughput runs per route and direction; the median is reported. */
  transferRuns: number;
  /** Sequential small requests per route (after warm-up). */
  sequentialRequests: number;
  /** How long each concurrency level runs per route. */
  concurrentMs: number;
  concurrencyLevels: number[];
  sseRuns: number;
  sseEvents: number;
  sseIntervalMs: number;
  completionRuns: number;
  wsRoundTrips: number;
  wsBurstMessages: number;
  /** The large upload during which RSS is sampled. */
  memoryUploadBytes: number;
  /** How much the slow reader reads (at ~5 ms per chunk) before it stops reading. */
  slowReaderBytes: number;
  controlRequests: number;
  launchRuns: number;
  concurrentLaunches: number;
  /** Rounds of the host ceiling's workloads (each unprofiled, then profiled); the median is reported. */
  ceilingRounds: number;
  /** How long the ceiling's small requests run in each round. */
  ceilingRequestMs: number;
  /** The ceiling's download and upload, each way per round. */
  ceilingTransferBytes: number;
  /** The volume the volumes suite saves and restores (the 1 GiB in --full). */
  volumeBytes: number;
}

export function benchConfig(full: boolean): BenchConfig {
  return full
    ? {
        mode: "full", transferBytes: 256 * MB, copyBytes: 1024 * MB, transferRuns: 3, sequentialRequests: 2000, concurrentMs: 10_000, concurrencyLevels: [16, 64],
        sseRuns: 20, sseEvents: 50, sseIntervalMs: 20, completionRuns: 50, wsRoundTrips: 5000, wsBurstMessages: 50_000,
        memoryUploadBytes: 512 * MB, slowReaderBytes: 64 * MB, controlRequests: 1000, launchRuns: 10, concurrentLaunches: 20,
        ceilingRounds: 5, ceilingRequestMs: 3_000, ceilingTransferBytes: 64 * MB, volumeBytes: 1024 * MB,
      }
    : {
        mode: "quick", transferBytes: 64 * MB, copyBytes: 64 * MB, transferRuns: 3, sequentialRequests: 300, concurrentMs: 3_000, concurrencyLevels: [16, 64],
        sseRuns: 5, sseEvents: 20, sseIntervalMs: 20, completionRuns: 15, wsRoundTrips: 500, wsBurstMessages: 5_000,
        memoryUploadBytes: 256 * MB, slowReaderBytes: 32 * MB, controlRequests: 300, launchRuns: 3, concurrentLaunches: 20,
        ceilingRounds: 3, ceilingRequestMs: 2_000, ceilingTransferBytes: 32 * MB, volumeBytes: 256 * MB,
      };
}
