// Idempotent set-up of the local stack: GPU models and the two dev machines through the operator
// API, and the dev account, signed up like any customer (email dev@localhost and a generated
// password), topped up to $100 and given an API key. What can be shown only once (agent tokens, the
// key, the password) and the Worker's INSTANCE_TOKEN_SECRET are kept in a file in the state dir, so a
// restart with the same state reuses them (and instance tokens stay valid).
import { randomBytes } from "node:crypto";
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
export const DEV_EMAIL = "dev@localhost";

export interface DevAccount {
  id: string;
  key: string;
  email: string;
  password: string;
}

export interface Bootstrap {
  machines: Record<string, { id: number; token: string }>;
  account: DevAccount;
  /** The Worker's INSTANCE_TOKEN_SECRET: instance tokens are derived from it. */
  instance_token_secret: string;
}

const bootstrapFile = (stateDir: string) => join(stateDir, "dev-bootstrap.json");

/**
 * The state dir's INSTANCE_TOKEN_SECRET, generated and written to dev-bootstrap.json on first start
 * (before the Worker starts, which needs it): a restart keeps every instance token valid.
 */
export function instanceTokenSecret(stateDir: string): string {
  const file = bootstrapFile(stateDir);
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Partial<Bootstrap>) : {};
  if (saved.instance_token_secret) return saved.instance_token_secret;
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, JSON.stringify({ ...saved, instance_token_secret: secret }, null, 2));
  return secret;
}

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Record<string, unknown> }>;

export async function bootstrap(baseUrl: string, adminToken: string, stateDir: string, secret: string): Promise<Bootstrap> {
  const caller = (prefix: string, authorization?: string): Call => async (method, path, body) => {
    const response = await fetch(`${baseUrl}${prefix}${path}`, {
      method,
      headers: {
        ...(authorization ? { authorization } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  const adminCall = caller("/admin/v1", `Bearer ${adminToken}`);
  const file = bootstrapFile(stateDir);
  // Files written before the dev login have an account without email and password; one written at
  // the first start before set-up finished holds only the secret.
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Partial<Bootstrap>) : null;

  for (const [model, entry] of Object.entries(DEV_GPU_MODELS)) {
    const result = await adminCall("PUT", `/gpu-models/${model}`, entry);
    if (result.status !== 200) throw new Error(`setting GPU model ${model}: ${result.status} ${JSON.stringify(result.body)}`);
  }

  const known = (await adminCall("GET", "/machines")).body.items as { id: number; name: string }[];
  const machines: Bootstrap["machines"] = {};
  for (const { name } of DEV_MACHINES) {
    const previous = saved?.machines?.[name];
    if (previous && known.some((m) => m.id === previous.id && m.name === name)) {
      machines[name] = previous;
      continue;
    }
    const created = await adminCall("POST", "/machines", { name });
    machines[name] = { id: created.body.id as number, token: created.body.agent_token as string };
  }

  let account = saved?.account ?? null;
  // State from before the dev account had a login keeps its old account; the dev login is a new one.
  if (!account?.password || (await adminCall("GET", `/accounts/${account.id}/keys`)).status !== 200) {
    account = await createDevAccount(caller("/v1"), adminCall, file);
  }

  const result = { machines, account, instance_token_secret: secret };
  writeFileSync(file, JSON.stringify(result, null, 2));
  return result;
}

async function createDevAccount(api: Call, adminCall: Call, file: string): Promise<DevAccount> {
  const password = randomBytes(18).toString("base64url");
  const signup = await api("POST", "/auth/signup", { email: DEV_EMAIL, password });
  if (signup.status === 409) {
    throw new Error(`${DEV_EMAIL} already has an account, but ${file} does not hold its password: start from empty state with --fresh`);
  }
  if (signup.status !== 201) throw new Error(`signing up ${DEV_EMAIL}: ${signup.status} ${JSON.stringify(signup.body)}`);
  const id = (signup.body.account as { id: string }).id;
  // Whatever SIGNUP_CREDIT_MICROS gave, the dev account starts with exactly $100.
  const topUp = DEV_BALANCE_MICROS - (signup.body.balance_micros as number);
  if (topUp !== 0) await adminCall("POST", `/accounts/${id}/credits`, { amount_micros: topUp, note: "dev balance" });
  const key = await adminCall("POST", `/accounts/${id}/keys`, { name: "dev" });
  return { id, key: key.body.key as string, email: DEV_EMAIL, password };
}
