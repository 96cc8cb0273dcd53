// The launch rules that need the catalog and the GPU model: template, model, image, VRAM, price.
// Field shapes (types, ranges, env names) are already checked by the LaunchBody schema.
import type { LaunchPlan } from "../../core/launch-plan.ts";
import type { GpuModel } from "../../durable-objects/contracts/fleet.ts";
import { launchCommand, resolveImage } from "./catalog/launch-commands.ts";
import { findModel } from "./catalog/models.ts";
import { findTemplate, templates } from "./catalog/templates.ts";
import { ApiError } from "../../core/errors.ts";
import { registryOf } from "../../standards/image-reference.ts";
import { DEFAULT_IMAGE_REGISTRIES, privateRegistryRefusal } from "./image-registry.ts";
import type { LaunchBody } from "./schemas/instance.ts";
import { DEFAULT_VOLUME_PATH } from "./schemas/volume.ts";

/** `registries`: the operator's IMAGE_REGISTRIES (allowedRegistries), null for any public registry; `localImages`: the dev Worker's DEV_LOCAL_IMAGES. */
export function planLaunch(body: LaunchBody, gpu: GpuModel | null, registries: string[] | null = DEFAULT_IMAGE_REGISTRIES, localImages = false): LaunchPlan {
  if (!gpu) throw invalid(`gpu_model: unknown GPU model "${body.gpu_model}"; see GET /v1/gpus`);
  const template = findTemplate(body.template);
  if (!template) throw invalid(`template: unknown template "${body.template}"; one of ${templates.map((t) => t.id).join(", ")}`);

  if (template.id === "custom" && !body.image) throw invalid("image: is required for the custom template");
  if (template.id !== "custom" && body.image !== undefined) throw invalid(`image: only the custom template takes an image; ${template.id} runs ${template.image}`);
  const privateRegistry = body.image === undefined ? null : privateRegistryRefusal(registryOf(body.image), localImages);
  if (privateRegistry) throw invalid(`image: must name a public registry: ${privateRegistry}`);
  if (body.image !== undefined && registries !== null && !registries.includes(registryOf(body.image))) {
    throw invalid(`image: its registry ${registryOf(body.image)} is not one this service pulls from (${registries.join(", ")})`);
  }

  if (body.gpu_count > 1 && !template.multi_gpu) throw invalid(`gpu_count: template ${template.id} runs on one GPU`);
  if (gpu.vram_gb < template.min_vram_gb) {
    throw invalid(`gpu_model: template ${template.id} needs a GPU with at least ${template.min_vram_gb} GB; ${gpu.model} has ${gpu.vram_gb} GB`);
  }

  let model = null;
  if (body.model !== undefined) {
    if (template.model_kinds.length === 0) throw invalid(`model: template ${template.id} takes no model`);
    model = findModel(body.model);
    if (!model) throw invalid(`model: unknown model "${body.model}"; see GET /v1/catalog`);
    if (!template.model_kinds.includes(model.kind)) {
      throw invalid(`model: ${model.id} is a ${model.kind} model; template ${template.id} serves ${template.model_kinds.join(", ")} models`);
    }
    const totalVram = gpu.vram_gb * body.gpu_count;
    if (model.min_vram_gb > totalVram) {
      throw invalid(`model: ${model.id} needs ${model.min_vram_gb} GB of VRAM; ${body.gpu_count} x ${gpu.model} has ${totalVram} GB`);
    }
  } else if (template.model_required) {
    throw invalid(`model: is required for template ${template.id}`);
  }

  return {
    gpu_model: gpu.model,
    gpu_count: body.gpu_count,
    template: template.id,
    min_cuda: template.min_cuda,
    model: model?.id ?? "",
    model_hf: model?.hf ?? "",
    image: resolveImage(template, gpu.arch, body.image),
    command: launchCommand(template.id, model?.hf ?? "", body.gpu_count),
    disk_gb: body.disk_gb ?? template.disk_gb,
    env: body.env ?? {},
    label: body.label ?? "",
    ports: template.ports,
    price_hour_micros: gpu.price_hour_micros * body.gpu_count,
    idle_stop_minutes: body.idle_stop_minutes ?? null,
    volumes: (body.volumes ?? []).map((volume) => ({ volume_id: volume.volume_id, path: volume.path ?? DEFAULT_VOLUME_PATH, read_only: volume.read_only ?? false })),
  };
}

const invalid = (message: string) => new ApiError("invalid", message);
