// The catalog response (GET /v1/catalog): GPUs, templates and models with cache status.
import { z } from "@hono/zod-openapi";
import { GpuEntry } from "./gpu.ts";

export const PortObject = z
  .object({
    port: z.number().int().openapi({ description: "The TCP port the server listens on inside the instance" }),
    name: z.string().openapi({ description: "What the port is for, e.g. `api`, `ui`, `jupyter`" }),
    kind: z.string().openapi({ description: "`http` for request/response servers and web UIs (readiness, Open in the browser); `tcp` for anything else" }),
    api: z.string().openapi({ description: "The API it speaks: `openai`, `ollama`, `comfyui`, `jupyter` or `http`" }),
    path: z.string().openapi({ description: "A path for a readiness check: a GET answered below 500 means the server is up" }),
  })
  .openapi("Port");

export const TemplateEntry = z
  .object({
    id: z.string().openapi({ description: "The template's id, the launch's `template`, e.g. `vllm`, `pytorch`, `custom`" }),
    category: z.string().openapi({ description: "`llm`, `embedding`, `image`, `notebook` or `custom`" }),
    name: z.string().openapi({ description: "Human-readable name" }),
    description: z.string().openapi({ description: "What it runs and serves" }),
    image: z.string().openapi({ description: "The public container image it runs; \"\" for `custom`, where the launch's `image` names it" }),
    ports: z.array(PortObject).openapi({ description: "The ports its server listens on inside the instance; none for `custom`" }),
    min_vram_gb: z.number().int().openapi({ description: "The memory per GPU, in GB, a GPU model needs to run it" }),
    min_cuda: z.string().openapi({ description: "The CUDA version the host's driver must support at least, e.g. `12.8`: only machines with it are chosen" }),
    disk_gb: z.number().int().openapi({ description: "Disk size in GB an instance gets when its launch names none" }),
    model_kinds: z.array(z.string()).openapi({ description: "The model `kind`s it serves (`llm`, `embedding`, `image`); empty when it takes no model" }),
    model_required: z.boolean().openapi({ description: "Whether a launch must name a `model`" }),
    multi_gpu: z.boolean().openapi({ description: "Whether it can use more than one GPU; when false, `gpu_count` must be 1" }),
  })
  .openapi("Template");

export const ModelEntry = z
  .object({
    id: z.string().openapi({ description: "The model's id, the launch's `model`" }),
    hf: z.string().openapi({ description: "Its Hugging Face hub id: the model name to use in requests to the server itself" }),
    name: z.string().openapi({ description: "Human-readable name" }),
    kind: z.string().openapi({ description: "`llm`, `embedding` or `image`: a template serves it when its `model_kinds` include this" }),
    params: z.string().openapi({ description: "Parameter count in short form, e.g. `8B`, `335M`" }),
    license: z.string().openapi({ description: "The weights' license as the hub names it, e.g. `apache-2.0`" }),
    min_vram_gb: z.number().int().openapi({ description: "Memory in GB needed to serve it, total across the instance's GPUs (`vram_gb` × `gpu_count`)" }),
    tier: z.string().openapi({ description: "`consumer` (fits one 24 GB GPU) or `datacenter` (needs 80 GB class memory)" }),
    gated: z.boolean().openapi({ description: "Whether the hub lets only accounts that accepted its license download it: pass such an account's token as `HF_TOKEN` in `env`" }),
    tags: z.array(z.string()).openapi({ description: "Short tags such as `chat`, `coding`, `multilingual`" }),
    description: z.string().openapi({ description: "What the model is and is good for" }),
    cached: z.boolean().openapi({ description: "Whether an online machine already holds its weights in its cache" }),
    size_gb: z.number().openapi({ description: "Download size of its weights in GB (for image models with their VAE and text encoders)" }),
  })
  .openapi("Model");

export const Catalog = z
  .object({
    gpus: z.array(GpuEntry).openapi({ description: "The GPU models, as GET /v1/gpus answers them" }),
    templates: z.array(TemplateEntry).openapi({ description: "The software stacks an instance can run" }),
    models: z.array(ModelEntry).openapi({ description: "The models the templates serve" }),
  })
  .openapi("Catalog");
