// Every interval, one `metrics` message for the whole machine: each running container's CPU and
// memory from its engine and the GPUs it holds, from the GPU source (the GPU's readings go to every
// container started with it). Nothing is sent while no container runs, so an idle machine's
// MachineDO is not woken. A sample still being read when the next is due is not doubled.
import { instanceUsage, MAX_SAMPLED_INSTANCES, type AgentMessage, type InstanceUsage } from "../../protocol/messages.ts";
import { errorMessage, type Logger } from "../log.ts";
import type { ContainerRuntime, ContainerUsage } from "../runtime/runtime.ts";
import { CpuRates } from "./cpu-rates.ts";
import type { GpuSource } from "./gpu-source.ts";

/** The sampling interval of production hosts; the MachineDO keeps one point per 10 s however often samples come. */
export const METRICS_INTERVAL_MS = 10_000;

export interface MetricsSamplerOptions {
  runtime: Pick<ContainerRuntime, "usage">;
  gpus: GpuSource;
  send(message: AgentMessage): void;
  intervalMs: number;
  log: Logger;
  now?: () => number;
}

const MIB = 1024 * 1024;

export class MetricsSampler {
  readonly #options: MetricsSamplerOptions;
  readonly #cpu = new CpuRates();
  #timer: NodeJS.Timeout | null = null;
  #sampling = false;

  constructor(options: MetricsSamplerOptions) {
    this.#options = options;
  }

  start(): void {
    this.#timer = setInterval(() => {
      if (this.#sampling) return;
      this.#sampling = true;
      void this.sampleOnce().finally(() => (this.#sampling = false));
    }, this.#options.intervalMs);
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#options.gpus.close();
  }

  /** Reads and sends one sample; returns what it sent (null: nothing runs, or the engine did not answer). */
  async sampleOnce(): Promise<AgentMessage | null> {
    const { runtime, gpus, send, log, now = Date.now } = this.#options;
    let containers: ContainerUsage[];
    try {
      containers = await runtime.usage();
    } catch (error) {
      log.warn("container usage not readable; sample skipped", { error: errorMessage(error) });
      return null;
    }
    const atMs = now();
    const readings = gpus.read(containers, atMs);
    this.#cpu.keepOnly(new Set(containers.map((c) => c.instanceId)));
    const instances = containers.flatMap((container): InstanceUsage[] => {
      const usage = instanceUsage.safeParse({
        instance_id: container.instanceId,
        cpu_percent: this.#cpu.percent(container.instanceId, container.cpuNs, atMs),
        cpu_seconds: container.cpuNs === null ? null : Math.round(container.cpuNs / 1e7) / 100,
        memory_used_mib: container.memoryBytes === null ? null : Math.round((container.memoryBytes / MIB) * 100) / 100,
        gpus: readings.filter((gpu) => container.gpuIndices.includes(gpu.index)),
      });
      return usage.success ? [usage.data] : [];
    });
    if (instances.length === 0) return null;
    const message: AgentMessage = { type: "metrics", instances: instances.slice(0, MAX_SAMPLED_INSTANCES) };
    send(message);
    return message;
  }
}
