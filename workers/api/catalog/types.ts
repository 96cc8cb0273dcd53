// Shapes of the static catalog: templates (software stacks) and models users can launch.
import type { PortSpec } from "../../../core/port-spec.ts";

export type ModelKind = "llm" | "embedding" | "image";

export interface Template {
  id: string;
  category: "llm" | "embedding" | "image" | "notebook" | "custom";
  name: string;
  description: string;
  /** Public image reference; "" for `custom`, where the caller supplies it. */
  image: string;
  ports: PortSpec[];
  min_vram_gb: number;
  /** Minimum CUDA version of the host driver, e.g. "12.4". */
  min_cuda: string;
  disk_gb: number;
  /** Model kinds the template can serve; empty when it takes no model. */
  model_kinds: ModelKind[];
  model_required: boolean;
  multi_gpu: boolean;
}

export interface Model {
  id: string;
  /** Hugging Face hub id: the model name to use in requests to the server itself. */
  hf: string;
  name: string;
  kind: ModelKind;
  /** Parameter count in a human form, e.g. "8B", "335M". */
  params: string;
  license: string;
  /** VRAM needed to serve it (weights in their native precision plus working memory), total across GPUs. */
  min_vram_gb: number;
  /** GPU tier it is meant for: `consumer` fits one 24 GB card, `datacenter` needs 80 GB class. */
  tier: "consumer" | "datacenter";
  gated: boolean;
  tags: string[];
  description: string;
  /** Download size of the weights in GB. */
  size_gb: number;
}
