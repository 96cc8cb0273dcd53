// One-line descriptions of an instance and its proxy addresses, shared by ls, show and launch.
import type { Instance } from "../client/index.ts";
import { dollars } from "./format.ts";

/** "2 × rtx4090, vllm (qwen2.5-0.5b-instruct), $1.38/hour" */
export function instanceSummary(instance: Instance): string {
  const software = instance.model ? `${instance.template} (${instance.model})` : instance.template;
  return `${instance.gpu_count} × ${instance.gpu_model}, ${software}, ${dollars(instance.price_hour_micros)}/hour`;
}

/** "running", or "error: <reason>" when there is a status message. */
export function statusText(instance: Instance): string {
  return instance.status_message ? `${instance.status}: ${instance.status_message}` : instance.status;
}

export function proxyUrl(apiUrl: string, instance: Instance, port: number): string {
  return `${apiUrl}/v1/instances/${instance.id}/proxy/${port}/`;
}
