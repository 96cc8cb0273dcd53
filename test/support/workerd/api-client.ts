// Test helpers for workerd tests: requests through the real Worker entry, and operator set-up.
import { exports } from "cloudflare:workers";
import { ROLES, type Credential } from "../../../durable-objects/contracts/members.ts";

export const ADMIN_TOKEN = "test-admin-token-at-least-32-bytes-long";
export const BASE = "http://gpu.test";

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  /** Scheme, host and port the request is sent to (default BASE). */
  base?: string;
}

/** Sends a request through the Worker; `key` (default none) goes in Authorization. */
export async function call(method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { "cf-connecting-ip": "10.0.0.1", ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  return exports.default.fetch(new Request((options.base ?? BASE) + path, { method, headers, body }));
}

export async function callJson<T = Record<string, unknown>>(method: string, path: string, options: CallOptions = {}) {
  const response = await call(method, path, options);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as T };
}

export const admin = (method: string, path: string, body?: unknown) =>
  callJson(method, `/admin/v1${path}`, { key: ADMIN_TOKEN, body });

/** Whether the operator API lists machine `id` as online (FleetDO's index, kept by its MachineDO). */
export const machineOnline = async (id: number) =>
  ((await admin("GET", "/machines")).body.items as { id: number; online: boolean }[]).find((m) => m.id === id)!.online;

export const GPU_MODELS = {
  rtx4090: { display_name: "NVIDIA GeForce RTX 4090", vram_gb: 24, price_hour_micros: 690_000, tier: "consumer", arch: "ada" },
  "h100-80gb": { display_name: "NVIDIA H100 80GB", vram_gb: 80, price_hour_micros: 2_990_000, tier: "datacenter", arch: "hopper" },
  "a100-80gb": { display_name: "NVIDIA A100 80GB", vram_gb: 80, price_hour_micros: 1_790_000, tier: "datacenter", arch: "ampere" },
} as const;

export async function seedGpuModels(): Promise<void> {
  for (const [model, entry] of Object.entries(GPU_MODELS)) {
    const result = await admin("PUT", `/gpu-models/${model}`, entry);
    if (result.status !== 200) throw new Error(`seeding ${model}: ${JSON.stringify(result.body)}`);
  }
}

/** A new account with `balance` micro-dollars and one API key. */
export async function newAccount(balance = 100_000_000): Promise<{ id: string; key: string }> {
  const account = await admin("POST", "/accounts", { balance_micros: balance });
  const created = await admin("POST", `/accounts/${account.body.id as string}/keys`, { name: "test" });
  return { id: account.body.id as string, key: created.body.key as string };
}

/** An API key as a Worker route hands it to its AccountDO, for tests that call the object directly: every role's route. */
export const keyCredential = (key: string): Credential => ({ token: key, may: ROLES, needs: null, ip: null });
