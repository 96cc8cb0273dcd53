// The dev host's synthetic GPUs (`--gpus rtx4090:8`), made to look busy exactly when their container
// is: each GPU follows the request rate its dev container reports (requests served since the last
// sample), so charts in `npm run dev` move with the traffic sent to an instance. The figures are a
// deterministic function of that rate, shaped like a real inference server's: memory mostly taken
// once the model is loaded, utilisation, power, temperature and clock rising with load.
import type { GpuInfo, GpuSample } from "../../protocol/messages.ts";
import type { ContainerUsage } from "../runtime/runtime.ts";
import type { GpuSource } from "../metrics/gpu-source.ts";

/** Board power limits in watts of the models the dev stack runs, as nvidia-smi reports `power.limit`. */
const POWER_LIMIT_W: Record<string, number> = { rtx4090: 450, "h100-80gb": 700 };
const DEFAULT_POWER_LIMIT_W = 300;

/** Load as a fraction of saturation for a request rate: 1 request/s is half busy, 9/s is 90 %. */
export const loadOf = (requestsPerSecond: number) => requestsPerSecond / (requestsPerSecond + 1);

export class SyntheticGpuLoad implements GpuSource {
  readonly #gpus: GpuInfo[];
  /** Each container's request count at the last sample, to turn the count into a rate. */
  readonly #last = new Map<string, { served: number; atMs: number }>();

  constructor(gpus: GpuInfo[]) {
    this.#gpus = gpus;
  }

  read(containers: ContainerUsage[], nowMs: number): GpuSample[] {
    const loadByGpu = new Map<number, number>();
    for (const container of containers) {
      const load = loadOf(this.#rate(container, nowMs));
      for (const index of container.gpuIndices) loadByGpu.set(index, Math.max(load, loadByGpu.get(index) ?? 0));
    }
    for (const instanceId of this.#last.keys()) if (!containers.some((c) => c.instanceId === instanceId)) this.#last.delete(instanceId);
    return this.#gpus.map((gpu) => syntheticSample(gpu, loadByGpu.get(gpu.index)));
  }

  close(): void {}

  #rate(container: ContainerUsage, nowMs: number): number {
    if (container.requestsServed === null) return 0;
    const last = this.#last.get(container.instanceId);
    this.#last.set(container.instanceId, { served: container.requestsServed, atMs: nowMs });
    if (!last || nowMs <= last.atMs) return 0;
    return Math.max(0, container.requestsServed - last.served) / ((nowMs - last.atMs) / 1000);
  }
}

/** One GPU at `load` (0..1) while a container holds it, or idle and empty when none does (`load` undefined). */
export function syntheticSample(gpu: GpuInfo, load: number | undefined): GpuSample {
  const limit = POWER_LIMIT_W[gpu.model] ?? DEFAULT_POWER_LIMIT_W;
  const idle = limit * 0.06;
  const busy = load ?? 0;
  return {
    index: gpu.index,
    util_percent: Math.round(100 * busy),
    memory_used_mib: load === undefined ? 0 : Math.round(gpu.vram_mb * (0.5 + 0.4 * busy)),
    memory_total_mib: gpu.vram_mb,
    power_w: Math.round((idle + (limit * 0.9 - idle) * busy) * 100) / 100,
    power_limit_w: limit,
    temperature_c: Math.round(30 + 45 * busy),
    sm_clock_mhz: busy > 0 ? Math.round(1410 + 570 * busy) : 210,
  };
}
