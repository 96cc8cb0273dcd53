import { describe, expect, it } from "vitest";
import type { Gpu, Model, Template } from "../../api/catalog.ts";
import {
  countChoices, defaultVolumePath, effectiveModel, fittingModels, launchRequest, parseEnv, pricePerHour, type LaunchChoices,
} from "./launch-choices.ts";

const gpu = (model: string, vram_gb: number, max_per_server: number): Gpu => ({
  model, display_name: model, vram_gb, price_hour_micros: 690_000, tier: "consumer", arch: "ada", free_gpus: max_per_server, max_per_server,
});
const template = (id: string, model_kinds: string[], model_required: boolean, multi_gpu: boolean): Template => ({
  id, category: "llm", name: id, description: "", image: "", ports: [], min_vram_gb: 8, min_cuda: "12.0", disk_gb: 50, model_kinds, model_required, multi_gpu,
});
const model = (id: string, kind: string, min_vram_gb: number): Model => ({
  id, hf: id, name: id, kind, params: "", license: "", min_vram_gb, tier: "", gated: false, tags: [], description: "", cached: false, size_gb: 1,
});

const rtx4090 = gpu("rtx4090", 24, 8);
const vllm = template("vllm", ["llm"], true, true);
const comfyui = template("comfyui", ["image"], false, false);
const models = [model("small", "llm", 8), model("mid", "llm", 40), model("large", "llm", 160), model("sdxl", "image", 12)];

describe("launch choices", () => {
  it("offers GPU counts up to what one machine holds, and one for a single-GPU template", () => {
    expect(countChoices(rtx4090, vllm)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(countChoices(gpu("h100-80gb", 80, 2), vllm)).toEqual([1, 2]);
    expect(countChoices(rtx4090, comfyui)).toEqual([1]);
    expect(countChoices(gpu("a100-80gb", 80, 0), vllm)).toEqual([1]);
  });

  it("lists the template's models that fit the chosen GPUs' VRAM together", () => {
    expect(fittingModels(models, vllm, rtx4090, 1).map((m) => m.id)).toEqual(["small"]);
    expect(fittingModels(models, vllm, rtx4090, 2).map((m) => m.id)).toEqual(["small", "mid"]);
    expect(fittingModels(models, vllm, rtx4090, 8).map((m) => m.id)).toEqual(["small", "mid", "large"]);
    expect(fittingModels(models, comfyui, rtx4090, 1).map((m) => m.id)).toEqual(["sdxl"]);
  });

  it("keeps a chosen model while it fits, else takes the first that does, or none where a model is optional", () => {
    const fitting = fittingModels(models, vllm, rtx4090, 2);
    expect(effectiveModel("mid", fitting, vllm)).toBe("mid");
    expect(effectiveModel("large", fitting, vllm)).toBe("small");
    expect(effectiveModel("", fitting, vllm)).toBe("small");
    expect(effectiveModel("", [], vllm)).toBe("");
    expect(effectiveModel("", fittingModels(models, comfyui, rtx4090, 1), comfyui)).toBe("");
    expect(effectiveModel("sdxl", fittingModels(models, comfyui, rtx4090, 1), comfyui)).toBe("sdxl");
  });

  it("prices the choice as the GPU's hourly price times the count", () => {
    expect(pricePerHour(rtx4090, 3)).toBe(2_070_000);
    expect(pricePerHour(undefined, 3)).toBe(0);
  });

  it("reads NAME=value lines, values kept as typed, and refuses a line without a name", () => {
    expect(parseEnv("A=1\n\nB = two=2\nEMPTY=")).toEqual({ ok: true, env: { A: "1", B: " two=2", EMPTY: "" } });
    expect(parseEnv("A=1\njust words")).toEqual({ ok: false, message: "env: line 2 is not NAME=value" });
    expect(parseEnv("=x")).toEqual({ ok: false, message: "env: line 1 is not NAME=value" });
  });

  it("leaves empty fields out of the request so the API's defaults apply", () => {
    const choices: LaunchChoices = { gpu: "rtx4090", count: 2, template: "vllm", model: "", image: "", label: " ", diskGb: "", env: "", idleStop: " ", volumes: [] };
    expect(launchRequest(choices, "small", false, {})).toEqual({ gpu_model: "rtx4090", gpu_count: 2, template: "vllm", model: "small" });
    expect(launchRequest({ ...choices, template: "custom", image: " nginx:1.27 ", label: "web", diskGb: "80", idleStop: "30" }, "", true, { A: "1" }))
      .toEqual({ gpu_model: "rtx4090", gpu_count: 2, template: "custom", image: "nginx:1.27", label: "web", disk_gb: 80, env: { A: "1" }, idle_stop_minutes: 30 });
  });

  it("sends each chosen volume with its path (left out when empty, for the API's default) and read_only only when set", () => {
    const choices: LaunchChoices = {
      gpu: "rtx4090", count: 1, template: "vllm", model: "", image: "", label: "", diskGb: "", env: "", idleStop: "",
      volumes: [{ volumeId: "vol_a", path: " /data ", readOnly: true }, { volumeId: "vol_b", path: " ", readOnly: false }],
    };
    expect(launchRequest(choices, "small", false, {}).volumes).toEqual([{ volume_id: "vol_a", path: "/data", read_only: true }, { volume_id: "vol_b" }]);
  });

  it("offers /workspace to the first volume chosen and a folder of its own to the next", () => {
    expect(defaultVolumePath("data", [])).toBe("/workspace");
    expect(defaultVolumePath("data", [{ volumeId: "vol_a", path: "/elsewhere", readOnly: false }])).toBe("/workspace");
    expect(defaultVolumePath("data", [{ volumeId: "vol_a", path: "/workspace", readOnly: false }])).toBe("/volumes/data");
    expect(defaultVolumePath("data", [{ volumeId: "vol_a", path: "", readOnly: false }])).toBe("/volumes/data");
  });
});
