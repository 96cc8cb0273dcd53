// Where a sample's GPU figures come from: nvidia-smi on a real host (nvidia-smi-stream.ts), or the
// dev host's synthetic GPUs (dev/synthetic-gpu-load.ts), which follow what the containers do.
import type { GpuSample } from "../../protocol/messages.ts";
import type { ContainerUsage } from "../runtime/runtime.ts";

export interface GpuSource {
  /** Each GPU's latest state, by index; `containers` (what runs now, on which GPUs) is what a synthetic source derives it from. */
  read(containers: ContainerUsage[], nowMs: number): GpuSample[];
  close(): void;
}
