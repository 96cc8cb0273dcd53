// Synthetic GPUs of the dev agent (`--gpus model:count[,model:count]`).
import { describe, expect, it } from "vitest";
import { parseGpuSpec } from "./synthetic-gpus.ts";

describe("synthetic GPUs", () => {
  it("expands model:count groups with consecutive indices", () => {
    const gpus = parseGpuSpec("rtx4090:2,h100-80gb:1");
    expect(gpus).toEqual([
      { index: 0, model: "rtx4090", name: "NVIDIA GeForce RTX 4090", uuid: "GPU-local-0", vram_mb: 24564 },
      { index: 1, model: "rtx4090", name: "NVIDIA GeForce RTX 4090", uuid: "GPU-local-1", vram_mb: 24564 },
      { index: 2, model: "h100-80gb", name: "NVIDIA H100 80GB HBM3", uuid: "GPU-local-2", vram_mb: 81559 },
    ]);
  });

  it.each(["rtx4090", "rtx4090:0", "nope:2", ""])("rejects %j", (text) => {
    expect(parseGpuSpec(text)).toEqual({ error: expect.any(String) });
  });
});
