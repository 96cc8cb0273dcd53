// Sanity checks on the static catalog data: ids, ports, images, model metadata and lookups.
import { describe, it, expect } from "vitest";
import { templates, findTemplate } from "./templates.ts";
import { models, findModel, findModelByHf } from "./models.ts";

const SLUG = /^[a-z0-9][a-z0-9.-]*$/;
const TEMPLATE_IDS = ["vllm", "sglang", "embeddings", "comfyui", "pytorch", "ollama", "custom"];

describe("templates", () => {
  it("has exactly the seven template ids, in order", () => {
    expect(templates.map((t) => t.id)).toEqual(TEMPLATE_IDS);
  });

  it("has unique slug-shaped ids", () => {
    const ids = templates.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(SLUG);
  });

  it("lists model kinds whenever a model is required", () => {
    for (const t of templates) {
      if (t.model_required) expect(t.model_kinds.length, t.id).toBeGreaterThan(0);
    }
  });

  it("has well-formed ports", () => {
    for (const t of templates) {
      const seen = new Set<number>();
      for (const p of t.ports) {
        expect(Number.isInteger(p.port), `${t.id} port`).toBe(true);
        expect(p.port, t.id).toBeGreaterThanOrEqual(1);
        expect(p.port, t.id).toBeLessThanOrEqual(65535);
        expect(seen.has(p.port), `${t.id} duplicate port ${p.port}`).toBe(false);
        seen.add(p.port);
        expect(p.name.length, t.id).toBeGreaterThan(0);
        expect(["http", "tcp"]).toContain(p.kind);
        expect(p.api.length, t.id).toBeGreaterThan(0);
        expect(p.path.startsWith("/"), `${t.id} path ${p.path}`).toBe(true);
      }
    }
  });

  it("uses the agreed ports", () => {
    const first = (id: string) => findTemplate(id)?.ports[0];
    expect(first("vllm")).toEqual({ port: 8000, name: "api", kind: "http", api: "openai", path: "/health" });
    expect(first("sglang")).toMatchObject({ port: 30000, api: "openai", path: "/health" });
    expect(first("embeddings")).toMatchObject({ port: 8000, api: "openai", path: "/health" });
    expect(first("comfyui")).toMatchObject({ port: 8188, api: "comfyui", path: "/" });
    expect(first("pytorch")).toMatchObject({ port: 8888, api: "jupyter", path: "/api" });
    expect(first("ollama")).toMatchObject({ port: 11434, api: "openai", path: "/" });
  });

  it("has a tagged image for every template but custom", () => {
    for (const t of templates) {
      if (t.id === "custom") {
        expect(t.image).toBe("");
        expect(t.model_kinds).toEqual([]);
        expect(t.model_required).toBe(false);
        continue;
      }
      expect(t.image.length, t.id).toBeGreaterThan(0);
      const lastSegment = t.image.split("/").pop() ?? "";
      expect(lastSegment.includes(":"), `${t.id} image ${t.image} has no tag`).toBe(true);
      expect(t.image.endsWith(":latest"), t.id).toBe(false);
    }
  });

  it("has plausible requirements", () => {
    for (const t of templates) {
      expect(t.min_vram_gb, t.id).toBeGreaterThan(0);
      expect(t.disk_gb, t.id).toBeGreaterThan(0);
      expect(t.min_cuda, t.id).toMatch(/^\d+\.\d+$/);
      expect(t.name.length, t.id).toBeGreaterThan(0);
      expect(t.description.length, t.id).toBeGreaterThan(0);
    }
  });

  it("finds templates by id", () => {
    expect(findTemplate("vllm")?.image).toBe("vllm/vllm-openai:v0.11.0");
    expect(findTemplate("nope")).toBeUndefined();
  });
});

describe("models", () => {
  it("has at least 18 models with unique slug-shaped ids", () => {
    expect(models.length).toBeGreaterThanOrEqual(18);
    const ids = models.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(SLUG);
  });

  it("has unique org/name Hugging Face ids", () => {
    const hfs = models.map((m) => m.hf.toLowerCase());
    expect(new Set(hfs).size).toBe(hfs.length);
    for (const m of models) expect(m.hf, m.id).toMatch(/^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/);
  });

  it("covers gated models and every kind", () => {
    expect(models.some((m) => m.gated)).toBe(true);
    expect(models.filter((m) => m.kind === "llm").length).toBeGreaterThanOrEqual(5);
    expect(models.filter((m) => m.kind === "embedding").length).toBeGreaterThanOrEqual(4);
    expect(models.filter((m) => m.kind === "image").length).toBeGreaterThanOrEqual(3);
  });

  it("has a tier consistent with min_vram_gb", () => {
    for (const m of models) {
      expect(m.tier, m.id).toBe(m.min_vram_gb <= 24 ? "consumer" : "datacenter");
    }
  });

  it("has plausible sizes and metadata", () => {
    for (const m of models) {
      expect(m.min_vram_gb, m.id).toBeGreaterThan(0);
      expect(m.size_gb, m.id).toBeGreaterThan(0);
      // Weights must fit in the VRAM the model claims to need.
      expect(m.size_gb, m.id).toBeLessThanOrEqual(m.min_vram_gb * 1.5);
      expect(m.params, m.id).toMatch(/^\d+(\.\d+)?[MB]$/);
      expect(m.license.length, m.id).toBeGreaterThan(0);
      expect(m.name.length, m.id).toBeGreaterThan(0);
      expect(m.description.length, m.id).toBeGreaterThan(0);
      expect(m.tags.length, m.id).toBeGreaterThan(0);
      for (const tag of m.tags) expect(tag, m.id).toBe(tag.toLowerCase());
    }
  });

  it("can be served by at least one template", () => {
    for (const m of models) {
      expect(templates.some((t) => t.model_kinds.includes(m.kind)), m.id).toBe(true);
    }
  });

  it("finds models by id and by Hugging Face id", () => {
    expect(findModel("llama-3.1-8b-instruct")?.hf).toBe("meta-llama/Llama-3.1-8B-Instruct");
    expect(findModel("llama-3.1-8b-instruct")?.gated).toBe(true);
    expect(findModelByHf("Qwen/Qwen2.5-0.5B-Instruct")?.id).toBe("qwen2.5-0.5b-instruct");
    expect(findModelByHf("qwen/qwen2.5-0.5b-instruct")?.id).toBe("qwen2.5-0.5b-instruct");
    expect(findModel("nope")).toBeUndefined();
    expect(findModelByHf("nope/nope")).toBeUndefined();
  });
});
