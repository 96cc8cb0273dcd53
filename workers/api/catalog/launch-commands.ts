// How each template's image is started for one instance: the image tag that fits the GPU
// architecture, and the command-line arguments for the model and GPU count. The catalog shows
// templates; this is what the host actually runs.
import type { Template } from "./types.ts";

/** Text Embeddings Inference ships one image per CUDA compute capability. */
const TEI_TAG_BY_ARCH: Record<string, string> = { ampere: "1.8", ada: "89-1.8", hopper: "hopper-1.8", turing: "turing-1.8" };

export function resolveImage(template: Template, gpuArch: string, customImage: string | undefined): string {
  if (template.id === "custom") return customImage ?? "";
  if (template.id === "embeddings") {
    const tag = TEI_TAG_BY_ARCH[gpuArch.toLowerCase()];
    if (tag) return template.image.replace(/:[^:/]+$/, `:${tag}`);
  }
  return template.image;
}

/**
 * The PyTorch runtime image has no Jupyter: install JupyterLab and serve it at `/`, the root of the
 * port's app origin (the path proxy strips its prefix too), locked by the instance token. The agent
 * hands it `Host: localhost:8888`, so Jupyter would take the browser's Origin, the app origin, for a
 * cross-origin caller and refuse its API calls and kernel WebSockets: that origin, and only this
 * instance's (its id read from PROXY_BASE_PATH, `/v1/instances/<id>/proxy`), is allowed. The pattern
 * covers the whole origin: current Jupyter Server (2.21) matches it whole, a prefix no longer (its
 * sign-in form was refused), and earlier versions from its start.
 */
const PYTORCH_JUPYTER =
  'id="${PROXY_BASE_PATH#/v1/instances/}"; id="${id%/proxy}"; pip install --quiet jupyterlab && ' +
  'exec jupyter lab --ip=0.0.0.0 --port=8888 --no-browser --allow-root --IdentityProvider.token="$INSTANCE_TOKEN" ' +
  '--ServerApp.allow_origin_pat="^https?://${id}-8888\\.[a-z0-9.-]+(:[0-9]+)?$"';

/** The container command; [] keeps the image's own (Ollama, ComfyUI, custom images). */
export function launchCommand(templateId: string, modelHf: string, gpuCount: number): string[] {
  switch (templateId) {
    case "vllm": // the image's entrypoint is the OpenAI-compatible server; these are its arguments
      return ["--model", modelHf, "--host", "0.0.0.0", "--port", "8000", "--tensor-parallel-size", String(gpuCount)];
    case "sglang":
      return ["python3", "-m", "sglang.launch_server", "--model-path", modelHf, "--host", "0.0.0.0", "--port", "30000", "--tp", String(gpuCount)];
    case "embeddings": // text-embeddings-router listens on 80 unless told otherwise
      return ["--model-id", modelHf, "--hostname", "0.0.0.0", "--port", "8000"];
    case "pytorch":
      return ["bash", "-c", PYTORCH_JUPYTER];
    default:
      return [];
  }
}
