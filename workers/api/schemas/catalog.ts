// The catalog response (GET /v1/catalog): GPUs, templates and models with cache status.
import { z } from "@hono/zod-openapi";
import { GpuEntry } from "./gpu.ts";

export const PortObject = z
  .object({ port: z.number().int(), name: z.string(), kind: z.string(), api: z.string(), path: z.string() })
  .openapi("Port");

export const TemplateEntry = z
  .object({
    id: z.string(),
    category: z.string(),
    name: z.string(),
    description: z.string(),
    image: z.string(),
    ports: z.array(PortObject),
    min_vram_gb: z.number().int(),
    min_cuda: z.string(),
    disk_gb: z.number().int(),
    model_kinds: z.array(z.string()),
    model_required: z.boolean(),
    multi_gpu: z.boolean(),
  })
  .openapi("Template");

export const ModelEntry = z
  .object({
    id: z.string(),
    hf: z.string(),
    name: z.string(),
    kind: z.string(),
    params: z.string(),
    license: z.string(),
    min_vram_gb: z.number().int(),
    tier: z.string(),
    gated: z.boolean(),
    tags: z.array(z.string()),
    description: z.string(),
    cached: z.boolean(),
    size_gb: z.number(),
  })
  .openapi("Model");

export const Catalog = z
  .object({ gpus: z.array(GpuEntry), templates: z.array(TemplateEntry), models: z.array(ModelEntry) })
  .openapi("Catalog");
