// A port a template's server listens on, as the catalog and every instance show it.
export interface PortSpec {
  port: number;
  name: string;
  /** `http` for request/response servers and web UIs; `tcp` for anything else. */
  kind: "http" | "tcp";
  /** The API the port speaks: `openai`, `ollama`, `comfyui`, `jupyter`, `http`. */
  api: string;
  /** A path suitable for a readiness check. */
  path: string;
}
