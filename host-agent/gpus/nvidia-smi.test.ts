// nvidia-smi parsing on recorded outputs (GPU list, driver version, CUDA version; see
// fixtures/SOURCES.md) and GPU name mapping.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { gpuModelId } from "./gpu-models.ts";
import type { CommandResult, RunCommand } from "../host-command.ts";
import { discoverNvidiaHost, parseCudaVersion, parseDriverVersion, parseNvidiaSmiCsv } from "./nvidia-smi.ts";

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
    expect(parseNvidiaSmiCsv("0, Odd, Name, GPU-1, 100\r\n")).toEqual([{ index: 0, model: "", name: "Odd, Name", uuid: "GPU-1", vram_mb: 100 }]);
    expect(() => parseNvidiaSmiCsv("0, NVIDIA L4, GPU-1, [N/A]\n")).toThrow('line 1 is not "index, name, uuid, memory.total"');
  });
});

describe("driver and CUDA versions", () => {
  it("reads the driver version from the driver_version query (one line per GPU)", () => {
    expect(parseDriverVersion(fixture("driver-query-515.txt"))).toBe("515.57");
    expect(parseDriverVersion(fixture("driver-not-loaded.txt"))).toBeNull();
    expect(parseDriverVersion("")).toBeNull();
  });

  it.each([
    ["banner-a10-driver-550.txt", "12.4"],
    ["banner-h100-driver-550.txt", "12.4"],
    ["banner-b200-driver-610.txt", "13.3"],
    ["banner-gtx680-driver-331.txt", null],
    ["driver-not-loaded.txt", null],
  ])("reads the CUDA version from the banner in %s", (file, version) => {
    expect(parseCudaVersion(fixture(file))).toBe(version);
  });

  it("discovers a host from the three nvidia-smi calls; unreadable versions become \"\"", async () => {
    const answers: Record<string, CommandResult> = {
      "--query-gpu=index,name,uuid,memory.total": { ok: true, stdout: fixture("8x-h100.csv") },
      "--query-gpu=driver_version": { ok: true, stdout: fixture("driver-query-515.txt") },
      "": { ok: true, stdout: fixture("banner-h100-driver-550.txt") },
    };
    const run: RunCommand = async (file, args) => answers[args[0] ?? ""] ?? { ok: false, missing: file !== "nvidia-smi", exitCode: 1, output: "" };
    const host = await discoverNvidiaHost(run);
    expect(host).toMatchObject({ driverVersion: "515.57", cudaVersion: "12.4" });
    expect(host.gpus).toHaveLength(8);

    answers[""] = { ok: true, stdout: fixture("banner-gtx680-driver-331.txt") };
    answers["--query-gpu=driver_version"] = { ok: false, missing: false, exitCode: 9, output: fixture("driver-not-loaded.txt") };
    expect(await discoverNvidiaHost(run)).toMatchObject({ driverVersion: "", cudaVersion: "" });
  });

  it("fails discovery when nvidia-smi is missing or cannot list the GPUs", async () => {
    await expect(discoverNvidiaHost(async () => ({ ok: false, missing: true, exitCode: null, output: "spawn nvidia-smi ENOENT" }))).rejects.toThrow(
      "GPU discovery failed: nvidia-smi is not installed",
    );
    await expect(discoverNvidiaHost(async () => ({ ok: false, missing: false, exitCode: 9, output: fixture("driver-not-loaded.txt") }))).rejects.toThrow(
      "GPU discovery failed: exit 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
    );
  });
});

describe("GPU model ids", () => {
  it.each([
    ["NVIDIA H100 80GB HBM3", "h100-80gb"],
    ["NVIDIA H100 PCIe", "h100-pcie"],
    ["NVIDIA H100 NVL", "h100-nvl"],
    ["NVIDIA H200", "h200"],
    ["NVIDIA H200 NVL", "h200"],
    ["NVIDIA B200", "b200"],
    ["NVIDIA A100-SXM4-80GB", "a100-80gb"],
    ["NVIDIA A100 80GB PCIe", "a100-80gb"],
    ["NVIDIA A100-SXM4-40GB", "a100-40gb"],
    ["NVIDIA A100-PCIE-40GB", "a100-40gb"],
    ["NVIDIA L40S", "l40s"],
    ["NVIDIA L4", "l4"],
    ["NVIDIA A10", "a10"],
    ["NVIDIA GeForce RTX 4090", "rtx4090"],
    ["NVIDIA GeForce RTX 5090", "rtx5090"],
    ["NVIDIA RTX 6000 Ada Generation", "rtx6000-ada"],
    ["NVIDIA RTX A6000", "rtx-a6000"],
    ["NVIDIA GeForce RTX 3090", "rtx3090"],
  ])("%s is %s", (name, model) => expect(gpuModelId(name)).toBe(model));

  it.each(["GeForce GTX 680", "NVIDIA A10G", "NVIDIA GeForce RTX 5090 D", "NVIDIA GB10"])("%s is unknown: model \"\", never offered", (name) => {
    expect(gpuModelId(name)).toBe("");
  });
});
