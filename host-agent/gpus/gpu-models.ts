// The one table of GPUs the service knows: our priced model id, the names nvidia-smi reports for it
// (as seen in public nvidia-smi captures), and its memory.total in MiB (what a synthetic GPU of the
// local runtime reports). A GPU whose name is not here gets model "": it is reported, never offered.
interface KnownGpu {
  model: string;
  names: readonly string[];
  vramMb: number;
}

const KNOWN_GPUS: readonly KnownGpu[] = [
  { model: "h100-80gb", names: ["NVIDIA H100 80GB HBM3"], vramMb: 81559 }, // H100 SXM
  { model: "h100-pcie", names: ["NVIDIA H100 PCIe"], vramMb: 81559 },
  { model: "h100-nvl", names: ["NVIDIA H100 NVL"], vramMb: 95830 },
  { model: "h200", names: ["NVIDIA H200", "NVIDIA H200 NVL"], vramMb: 143771 },
  { model: "b200", names: ["NVIDIA B200"], vramMb: 183359 },
  { model: "a100-80gb", names: ["NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe"], vramMb: 81920 },
  { model: "a100-40gb", names: ["NVIDIA A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB"], vramMb: 40960 },
  { model: "l40s", names: ["NVIDIA L40S"], vramMb: 46068 },
  { model: "l4", names: ["NVIDIA L4"], vramMb: 23034 },
  { model: "a10", names: ["NVIDIA A10"], vramMb: 23028 },
  { model: "rtx4090", names: ["NVIDIA GeForce RTX 4090"], vramMb: 24564 },
  { model: "rtx5090", names: ["NVIDIA GeForce RTX 5090"], vramMb: 32607 },
  { model: "rtx6000-ada", names: ["NVIDIA RTX 6000 Ada Generation"], vramMb: 49140 },
  { model: "rtx-a6000", names: ["NVIDIA RTX A6000"], vramMb: 49140 },
  { model: "rtx3090", names: ["NVIDIA GeForce RTX 3090"], vramMb: 24576 },
];

const MODEL_BY_NAME = new Map(KNOWN_GPUS.flatMap((gpu) => gpu.names.map((name) => [name, gpu.model] as const)));

/** Our model id for an nvidia-smi GPU name, or "" when the GPU is not in the table. */
export function gpuModelId(name: string): string {
  return MODEL_BY_NAME.get(name.trim()) ?? "";
}

/** What a synthetic GPU of `model` looks like (its first nvidia-smi name and memory), or undefined. */
export function syntheticGpu(model: string): { name: string; vramMb: number } | undefined {
  const known = KNOWN_GPUS.find((gpu) => gpu.model === model);
  return known && { name: known.names[0]!, vramMb: known.vramMb };
}

export const KNOWN_GPU_MODELS: readonly string[] = KNOWN_GPUS.map((gpu) => gpu.model);
