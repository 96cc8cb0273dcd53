// A launch request after the Worker has validated it against the catalog and the GPU model: what
// the AccountDO records and the MachineDO starts.
import type { PortSpec } from "./port-spec.ts";

export interface LaunchPlan {
  gpu_model: string;
  gpu_count: number;
  template: string;
  /** The template's minimum CUDA version (e.g. "12.8"): placement skips hosts whose driver supports less. */
  min_cuda: string;
  /** Catalog model id, "" when none. */
  model: string;
  /** Hugging Face id of the model, "" when none. */
  model_hf: string;
  image: string;
  /** Container command; [] keeps the image's own. */
  command: string[];
  disk_gb: number;
  env: Record<string, string>;
  label: string;
  ports: PortSpec[];
  /** GPU model price × gpu_count, frozen at launch. */
  price_hour_micros: number;
  /** Stop it after this many minutes idle; null: never. */
  idle_stop_minutes: number | null;
  /** The account's volumes to mount (`volume_id`: an id or a name, resolved by the account). */
  volumes: LaunchVolume[];
}

export interface LaunchVolume {
  volume_id: string;
  path: string;
  read_only: boolean;
}

export interface Idempotency {
  key: string;
  bodyHash: string;
}
