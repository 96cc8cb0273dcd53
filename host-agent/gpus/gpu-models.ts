// Our GPU model ids (as priced in the fleet) for the names nvidia-smi reports, and the synthetic
// GPUs the local runtime pretends to have.
const MODEL_BY_NAME: Record<string, string> = {
  "NVIDIA GeForce RTX 4090": "rtx4090",
  "NVIDIA H100 80GB HBM3": "h100-80gb",
  "NVIDIA H100 PCIe": "h100-80gb",
  "NVIDIA A100-SXM4-80GB": "a100-80gb",
  "NVIDIA A100 80GB PCIe": "a100-80gb",
  "NVIDIA A100-SXM4-40GB": "a100-40gb",
  "NVIDIA L40S": "l40s",
  "NVIDIA RTX A6000": "rtx-a6000",
  "NVIDIA GeForce RTX 3090": "rtx3090",
  "NVIDIA L4": "l4",
  "NVIDIA H200": "h200",
};

/** What a synthetic GPU of each model looks like: a typical nvidia-smi name and memory.total (MiB). */
export const SYNTHETIC_GPUS: Record<string, { name: string; vramMb: number }> = {
  rtx4090: { name: "NVIDIA GeForce RTX 4090", vramMb: 24564 },
  "h100-80gb": { name: "NVIDIA H100 80GB HBM3", vramMb: 81559 },
  "a100-80gb": { name: "NVIDIA A100-SXM4-80GB", vramMb: 81920 },
  "a100-40gb": { name: "NVIDIA A100-SXM4-40GB", vramMb: 40960 },
  l40s: { name: "NVIDIA L40S", vramMb: 46068 },
  "rtx-a6000": { name: "NVIDIA RTX A6000", vramMb: 49140 },
  rtx3090: { name: "NVIDIA GeForce RTX 3090", vramMb: 24576 },
  l4: { name: "NVIDIA L4", vramMb: 23034 },
  h200: { name: "NVIDIA H200", vramMb: 143771 },
};

/** Our model id for an nvidia-smi GPU name; unknown GPUs get a slug of their name so they still show up. */
export function gpuModelId(name: string): string {
  return MODEL_BY_NAME[name.trim()] ?? name.trim().toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}
