// GPU model entries (GET /v1/gpus) and the operator's price-setting body.
import { z } from "@hono/zod-openapi";

export const gpuModelId = z.string().regex(/^[a-z0-9][a-z0-9.-]{0,63}$/, "must be a lowercase id of letters, digits, '.' and '-'");

export const GpuModelBody = z
  .object({
    display_name: z.string().min(1).max(100),
    vram_gb: z.number().int().min(1).max(4096),
    price_hour_micros: z.number().int().min(0).max(1_000_000_000_000),
    tier: z.string().min(1).max(32),
    arch: z.string().min(1).max(32),
  })
  .strict()
  .openapi("GpuModelBody");

export const GpuEntry = z
  .object({
    model: z.string().openapi({ example: "rtx4090" }),
    display_name: z.string().openapi({ example: "NVIDIA GeForce RTX 4090" }),
    vram_gb: z.number().int(),
    price_hour_micros: z.number().int(),
    tier: z.string().openapi({ example: "consumer" }),
    arch: z.string().openapi({ example: "ada" }),
    free_gpus: z.number().int(),
    max_per_server: z.number().int(),
  })
  .openapi("Gpu");

export const GpuList = z.object({ gpus: z.array(GpuEntry) }).openapi("GpuList");

export const GpuModelEntry = GpuEntry.omit({ free_gpus: true, max_per_server: true }).openapi("GpuModel");
