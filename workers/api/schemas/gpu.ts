// GPU model entries (GET /v1/gpus) and the operator's price-setting body.
import { z } from "@hono/zod-openapi";

export const gpuModelId = z.string().regex(/^[a-z0-9][a-z0-9.-]{0,63}$/, "must be a lowercase id of letters, digits, '.' and '-'");

const DISPLAY_NAME = "Human-readable name";
const VRAM = "Memory per GPU in GB";
const TIER = "Class of the GPU as the operator names it, such as `consumer` or `datacenter`";
const ARCH = "GPU architecture such as `ada`, `hopper` or `ampere`; the `embeddings` template runs the image build made for it";

export const GpuModelBody = z
  .object({
    display_name: z.string().min(1).max(100).openapi({ description: DISPLAY_NAME }),
    vram_gb: z.number().int().min(1).max(4096).openapi({ description: `${VRAM}: templates and models that need more are refused on it` }),
    price_hour_micros: z.number().int().min(0).max(1_000_000_000_000).openapi({
      description: "Price of one GPU for one hour, in micro-dollars; launches from now on pay it, instances launched before keep theirs",
    }),
    tier: z.string().min(1).max(32).openapi({ description: TIER }),
    arch: z.string().min(1).max(32).openapi({ description: ARCH }),
  })
  .strict()
  .openapi("GpuModelBody");

export const GpuEntry = z
  .object({
    model: z.string().openapi({ description: "The GPU model's id: a launch's `gpu_model`", example: "rtx4090" }),
    display_name: z.string().openapi({ description: DISPLAY_NAME, example: "NVIDIA GeForce RTX 4090" }),
    vram_gb: z.number().int().openapi({ description: VRAM }),
    price_hour_micros: z.number().int().openapi({ description: "Price of one GPU for one hour, in micro-dollars (1,000,000 = $1)" }),
    tier: z.string().openapi({ description: TIER, example: "consumer" }),
    arch: z.string().openapi({ description: ARCH, example: "ada" }),
    free_gpus: z.number().int().openapi({ description: "GPUs of this model free now, on all online machines together" }),
    max_per_server: z.number().int().openapi({ description: "The largest `gpu_count` one launch can get now: the most free GPUs of this model on one online machine" }),
  })
  .openapi("Gpu");

export const GpuList = z
  .object({ gpus: z.array(GpuEntry).openapi({ description: "Every GPU model the service prices" }) })
  .openapi("GpuList");

export const GpuModelEntry = GpuEntry.omit({ free_gpus: true, max_per_server: true }).openapi("GpuModel");
