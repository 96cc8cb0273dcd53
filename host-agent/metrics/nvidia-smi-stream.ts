// The GPUs of a real host, read by ONE long-lived nvidia-smi that prints every GPU's line each
// interval (`-lms`), not a process per sample: nvidia-smi's start-up (driver and NVML init) costs more
// than a reading. Each line replaces that GPU's last reading; a process that dies is started again
// after a capped, jittered backoff, and readings older than three intervals are not reported.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import type { GpuSample } from "../../protocol/messages.ts";
import { Backoff } from "../backoff.ts";
import { gpuMetricsArgs, parseGpuMetricsLine } from "../gpus/gpu-metrics-csv.ts";
import type { Logger } from "../log.ts";
import type { GpuSource } from "./gpu-source.ts";

export interface NvidiaSmiStreamOptions {
  intervalMs: number;
  log: Logger;
  /** Starts nvidia-smi with these arguments; tests start a stand-in that replays recorded output. */
  start?: (args: string[]) => ChildProcess;
  backoff?: Backoff;
  now?: () => number;
}

/** How many intervals a reading stays current: a GPU that stops answering drops out of the samples. */
const FRESH_INTERVALS = 3;

export class NvidiaSmiStream implements GpuSource {
  readonly #options: NvidiaSmiStreamOptions;
  readonly #backoff: Backoff;
  readonly #latest = new Map<number, { sample: GpuSample; atMs: number }>();
  #child: ChildProcess | null = null;
  #restartTimer: NodeJS.Timeout | null = null;
  #closed = false;
  /** How many times nvidia-smi was started (for logs and tests). */
  starts = 0;

  constructor(options: NvidiaSmiStreamOptions) {
    this.#options = options;
    this.#backoff = options.backoff ?? new Backoff({ baseMs: 1_000, capMs: 60_000 });
    this.#start();
  }

  read(_containers: unknown, nowMs: number): GpuSample[] {
    const oldest = nowMs - FRESH_INTERVALS * this.#options.intervalMs;
    return [...this.#latest.values()].filter(({ atMs }) => atMs >= oldest).map(({ sample }) => sample).sort((a, b) => a.index - b.index);
  }

  close(): void {
    this.#closed = true;
    if (this.#restartTimer) clearTimeout(this.#restartTimer);
    this.#child?.kill();
  }

  #start(): void {
    const { intervalMs, log, start = (args) => spawn("nvidia-smi", args, { stdio: ["ignore", "pipe", "pipe"] }), now = Date.now } = this.#options;
    this.starts++;
    const child = start(gpuMetricsArgs(intervalMs));
    this.#child = child;
    let lastError = "";
    let refused = 0;
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.trim() === "") return;
      const sample = parseGpuMetricsLine(line);
      if ("error" in sample) {
        // One line a loop is enough to say what nvidia-smi prints instead.
        if (refused++ === 0) log.warn("nvidia-smi line not understood", { error: sample.error });
        lastError = line.trim();
        return;
      }
      // A process that answers has proved itself: the next failure starts the backoff over.
      this.#backoff.reset();
      this.#latest.set(sample.index, { sample, atMs: now() });
    });
    createInterface({ input: child.stderr! }).on("line", (line) => {
      if (line.trim() !== "") lastError = line.trim();
    });
    let ended = false;
    const restart = (why: string) => {
      if (ended) return;
      ended = true;
      if (this.#closed) return;
      const delayMs = this.#backoff.nextDelayMs();
      log.warn("nvidia-smi stopped; starting it again", { why, last_output: lastError, restart_in_ms: delayMs });
      this.#restartTimer = setTimeout(() => this.#start(), delayMs);
    };
    child.on("error", (error) => restart(error.message));
    child.on("exit", (code, signal) => restart(signal ? `signal ${signal}` : `exit ${code}`));
  }
}
