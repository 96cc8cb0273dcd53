// Idempotent set-up of the local stack through the operator API: GPU models, the two dev machines
// and the dev account. What can be shown only once (agent tokens, the API key) is kept in a file
// in the state dir, so a restart with the same state reuses it.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const DEV_GPU_MODELS = {
  rtx4090: { display_name: "NVIDIA GeForce RTX 4090", vram_gb: 24, price_hour_micros: 690_000, tier: "consumer", arch: "ada" },
  "h100-80gb": { display_name: "NVIDIA H100 80GB", vram_gb: 80, price_hour_micros: 2_990_000, tier: "datacenter", arch: "hopper" },
  "a100-80gb": { display_name: "NVIDIA A100 80GB", vram_gb: 80, price_hour_micros: 1_790_000, tier: "datacenter", arch: "ampere" },
};

export const DEV_MACHINES = [
  { name: "dev-1", gpus: "rtx4090:8" },
  { name: "dev-2", gpus: "h100-80gb:2" },
];

export const DEV_BALANCE_MICROS = 100_000_000;

export interface Bootstrap {
  machines: Record<string, { id: number; token: string }>;
  account: { id: string; key: string };
}

export async function bootstrap(baseUrl: string, adminToken: string, stateDir: string): Promise<Bootstrap> {
  const adminCall = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  const file = join(stateDir, "dev-bootstrap.json");
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Bootstrap) : null;

  for (const [model, entry] of Object.entries(DEV_GPU_MODELS)) {
    const result = await adminCall("PUT", `/gpu-models/${model}`, entry);
    if (result.status !== 200) throw new Error(`setting GPU model ${model}: ${result.status} ${JSON.stringify(result.body)}`);
  }

  const known = (await adminCall("GET", "/machines")).body.items as { id: number; name: string }[];
  const machines: Bootstrap["machines"] = {};
  for (const { name } of DEV_MACHINES) {
    const previous = saved?.machines[name];
    if (previous && known.some((m) => m.id === previous.id && m.name === name)) {
      machines[name] = previous;
      continue;
    }
    const created = await adminCall("POST", "/machines", { name });
    machines[name] = { id: created.body.id as number, token: created.body.agent_token as string };
  }

  let account = saved?.account ?? null;
  if (!account || (await adminCall("GET", `/accounts/${account.id}/keys`)).status !== 200) {
    const created = await adminCall("POST", "/accounts", { balance_micros: DEV_BALANCE_MICROS });
    const key = await adminCall("POST", `/accounts/${created.body.id as string}/keys`, { name: "dev" });
    account = { id: created.body.id as string, key: key.body.key as string };
  }

  const result = { machines, account };
  writeFileSync(file, JSON.stringify(result, null, 2));
  return result;
}
