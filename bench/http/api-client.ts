// JSON calls to the control API and the operator API, for setting up and driving benchmark runs.

export interface ApiAnswer<T> {
  status: number;
  body: T;
}

export async function callApi<T = Record<string, unknown>>(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

export interface InstanceView {
  id: string;
  status: string;
  machine_id: number | null;
  ports: { port: number; path: string }[];
}

export const LAUNCH_BODY = { gpu_model: "rtx4090", gpu_count: 1, template: "vllm", model: "qwen2.5-0.5b-instruct" };

/** A new account with $100 and an API key for it (operator API). */
export async function createAccount(baseUrl: string, adminToken: string): Promise<{ id: string; key: string }> {
  const account = await callApi<{ id: string }>(baseUrl, adminToken, "POST", "/admin/v1/accounts", { balance_micros: 100_000_000 });
  if (account.status !== 201) throw new Error(`creating an account: ${account.status} ${JSON.stringify(account.body)}`);
  const key = await callApi<{ key: string }>(baseUrl, adminToken, "POST", `/admin/v1/accounts/${account.body.id}/keys`, { name: "bench" });
  if (key.status !== 201) throw new Error(`creating a key: ${key.status} ${JSON.stringify(key.body)}`);
  return { id: account.body.id, key: key.body.key };
}
