// nvidia-smi CSV parsing on recorded outputs, GPU name mapping, and synthetic GPUs for the local runtime.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { gpuModelId } from "./gpu-models.ts";
import { parseNvidiaSmiCsv } from "./nvidia-smi.ts";
import { parseGpuSpec } from "./synthetic-gpus.ts";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

describe("nvidia-smi parsing", () => {
  it.each([
    ["8x-h100.csv", 8, "h100-80gb", "NVIDIA H100 80GB HBM3", 81559],
    ["8x-rtx4090.csv", 8, "rtx4090", "NVIDIA GeForce RTX 4090", 24564],
    ["4x-a100-40gb.csv", 4, "a100-40gb", "NVIDIA A100-SXM4-40GB", 40960],
    ["1x-l4.csv", 1, "l4", "NVIDIA L4", 23034],
  ])("parses %s", (file, count, model, name, vram) => {
    const gpus = parseNvidiaSmiCsv(fixture(file));
    expect(gpus).toHaveLength(count);
    expect(gpus.map((g) => g.index)).toEqual([...Array(count).keys()]);
    for (const gpu of gpus) {
      expect(gpu).toMatchObject({ model, name, vram_mb: vram });
      expect(gpu.uuid).toMatch(/^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
  });

  it("keeps a name that contains a comma, tolerates CRLF, and rejects a malformed line", () => {
    expect(parseNvidiaSmiCsv("0, Odd, Name, GPU-1, 100\r\n")).toEqual([{ index: 0, model: "odd-name", name: "Odd, Name", uuid: "GPU-1", vram_mb: 100 }]);
    expect(() => parseNvidiaSmiCsv("0, NVIDIA L4, GPU-1, [N/A]\n")).toThrow('line 1 is not "index, name, uuid, memory.total"');
  });
});

describe("GPU model ids", () => {
  it.each([
    ["NVIDIA GeForce RTX 4090", "rtx4090"],
    ["NVIDIA H100 80GB HBM3", "h100-80gb"],
    ["NVIDIA H100 PCIe", "h100-80gb"],
    ["NVIDIA A100-SXM4-80GB", "a100-80gb"],
    ["NVIDIA A100 80GB PCIe", "a100-80gb"],
    ["NVIDIA A100-SXM4-40GB", "a100-40gb"],
    ["NVIDIA L40S", "l40s"],
    ["NVIDIA RTX A6000", "rtx-a6000"],
    ["NVIDIA GeForce RTX 3090", "rtx3090"],
    ["NVIDIA L4", "l4"],
    ["NVIDIA H200", "h200"],
    ["NVIDIA GeForce GTX 1080 Ti", "nvidia-geforce-gtx-1080-ti"],
  ])("%s is %s", (name, model) => expect(gpuModelId(name)).toBe(model));
});

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
