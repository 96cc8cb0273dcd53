// The local runtime's GPUs, from `--gpus model:count[,model:count]` (e.g. `rtx4090:8`).
import type { GpuInfo } from "../../protocol/messages.ts";
import { KNOWN_GPU_MODELS, syntheticGpu } from "../gpus/gpu-models.ts";

export function parseGpuSpec(text: string): GpuInfo[] | { error: string } {
  const gpus: GpuInfo[] = [];
  for (const group of text.split(",").filter(Boolean)) {
    const match = /^([a-z0-9-]+):([1-9]\d*)$/.exec(group.trim());
    const known = match ? syntheticGpu(match[1] ?? "") : undefined;
    if (!match || !known) {
      return { error: `--gpus wants model:count[,model:count] with a model among ${KNOWN_GPU_MODELS.join(", ")}; got "${group}"` };
    }
    for (let n = 0; n < Number(match[2]); n++) {
      const index = gpus.length;
      gpus.push({ index, model: match[1] ?? "", name: known.name, uuid: `GPU-local-${index}`, vram_mb: known.vramMb });
    }
  }
  return gpus.length > 0 ? gpus : { error: "--gpus names no GPU" };
}
