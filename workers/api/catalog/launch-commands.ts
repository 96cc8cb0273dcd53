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

/** The container command; [] keeps the image's own (Ollama, ComfyUI, custom images). */
export function launchCommand(templateId: string, modelHf: string, gpuCount: number): string[] {
  switch (templateId) {
    case "vllm": // the image's entrypoint is the OpenAI-compatible server; these are its arguments
      return ["--model", modelHf, "--host", "0.0.0.0", "--port", "8000", "--tensor-parallel-size", String(gpuCount)];
    case "sglang":
      return ["python3", "-m", "sglang.launch_server", "--model-path", modelHf, "--host", "0.0.0.0", "--port", "30000", "--tp", String(gpuCount)];
    case "embeddings": // text-embeddings-router listens on 80 unless told otherwise
      return ["--model-id", modelHf, "--hostname", "0.0.0.0", "--port", "8000"];
    case "pytorch": // the runtime image has no Jupyter: install it, serve it under the proxy path
      return [
        "bash", "-c",
        'pip install --quiet jupyterlab && exec jupyter lab --ip=0.0.0.0 --port=8888 --no-browser --allow-root ' +
          '--ServerApp.base_url="$PROXY_BASE_PATH/8888" --IdentityProvider.token="$INSTANCE_TOKEN"',
      ];
    default:
      return [];
  }
}
