// The launch form's rules, as pure functions of the catalog and the choices made: which GPU counts
// and models fit, what the choice costs, and the request it becomes. The API stays the authority:
// whatever it refuses, it says why, and the form shows that beside the field.
import type { LaunchRequest } from "../../../client/index.ts";
import type { Gpu, Model, Template } from "../../api/catalog.ts";

export interface LaunchChoices {
  gpu: string;
  count: number;
  template: string;
  /** "" for none. */
  model: string;
  image: string;
  label: string;
  /** "" for the template's default. */
  diskGb: string;
  /** NAME=value lines. */
  env: string;
  /** Minutes idle before it is stopped; "" for never. */
  idleStop: string;
  /** The volumes chosen, in the order chosen. */
  volumes: VolumeChoice[];
}

export interface VolumeChoice {
  volumeId: string;
  /** "" for the API's default path. */
  path: string;
  readOnly: boolean;
}

/** The API's path for a volume whose path is left out. */
const DEFAULT_VOLUME_PATH = "/workspace";

/** Where a newly chosen volume is offered to be mounted: the API's default while no other chosen one is there, else a folder of its own. */
export function defaultVolumePath(name: string, chosen: readonly VolumeChoice[]): string {
  const taken = chosen.some((choice) => (choice.path.trim() || DEFAULT_VOLUME_PATH) === DEFAULT_VOLUME_PATH);
  return taken ? `/volumes/${name}` : DEFAULT_VOLUME_PATH;
}

/** GPU counts on offer: one machine holds at most max_per_server, and a single-GPU template runs on one. */
export function countChoices(gpu: Gpu | undefined, template: Template | undefined): number[] {
  const limit = template?.multi_gpu === false ? 1 : Math.min(8, Math.max(1, gpu?.max_per_server ?? 1));
  return Array.from({ length: limit }, (_, index) => index + 1);
}

/** Models the template serves that fit in the chosen GPUs' VRAM together. */
export function fittingModels(models: readonly Model[], template: Template | undefined, gpu: Gpu | undefined, count: number): Model[] {
  if (!template || !gpu) return [];
  return models.filter((model) => template.model_kinds.includes(model.kind) && model.min_vram_gb <= gpu.vram_gb * count);
}

/** The model that will be sent: the chosen one while it still fits, else the first that does (or none when optional). */
export function effectiveModel(chosen: string, fitting: readonly Model[], template: Template | undefined): string {
  if (fitting.some((model) => model.id === chosen)) return chosen;
  return template?.model_required ? (fitting[0]?.id ?? "") : "";
}

export const pricePerHour = (gpu: Gpu | undefined, count: number) => (gpu ? gpu.price_hour_micros * count : 0);

/** `NAME=value` lines into variables; blank lines are skipped. The API checks names and sizes. */
export function parseEnv(text: string): { ok: true; env: Record<string, string> } | { ok: false; message: string } {
  const env: Record<string, string> = {};
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const equals = line.indexOf("=");
    if (equals <= 0) return { ok: false, message: `env: line ${index + 1} is not NAME=value` };
    env[line.slice(0, equals).trim()] = line.slice(equals + 1);
  }
  return { ok: true, env };
}

/** The launch request for the choices; fields left empty are left out, so the API's defaults apply. */
export function launchRequest(choices: LaunchChoices, model: string, takesImage: boolean, env: Record<string, string>): LaunchRequest {
  return {
    gpu_model: choices.gpu,
    gpu_count: choices.count,
    template: choices.template,
    ...(model ? { model } : {}),
    ...(takesImage ? { image: choices.image.trim() } : {}),
    ...(choices.label.trim() ? { label: choices.label.trim() } : {}),
    ...(choices.diskGb.trim() ? { disk_gb: Number(choices.diskGb) } : {}),
    ...(Object.keys(env).length > 0 ? { env } : {}),
    ...(choices.idleStop.trim() ? { idle_stop_minutes: Number(choices.idleStop) } : {}),
    ...(choices.volumes.length > 0 ? { volumes: choices.volumes.map(volumeRequest) } : {}),
  };
}

const volumeRequest = ({ volumeId, path, readOnly }: VolumeChoice) => ({
  volume_id: volumeId,
  ...(path.trim() ? { path: path.trim() } : {}),
  ...(readOnly ? { read_only: true } : {}),
});
