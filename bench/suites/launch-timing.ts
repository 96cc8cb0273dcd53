// Times one launch: POST /v1/instances → 201, → status `running`, → its port answering through the
// proxy; then destroys the instance so the GPU is free again.
import { callApi, LAUNCH_BODY, type InstanceView } from "../http/api-client.ts";

export interface LaunchTiming {
  createdMs: number;
  runningMs: number;
  readyMs: number;
}

export async function timeLaunch(baseUrl: string, key: string, port: number): Promise<LaunchTiming> {
  const started = performance.now();
  const created = await callApi<InstanceView>(baseUrl, key, "POST", "/v1/instances", LAUNCH_BODY);
  if (created.status !== 201) throw new Error(`launch answered ${created.status}: ${JSON.stringify(created.body)}`);
  const createdMs = performance.now() - started;
  const id = created.body.id;
  try {
    await pollEvery(10, async () => {
      const { body } = await callApi<InstanceView>(baseUrl, key, "GET", `/v1/instances/${id}`);
      if (body.status === "error") throw new Error(`instance ${id} went to error`);
      return body.status === "running";
    });
    const runningMs = performance.now() - started;
    const health = `${baseUrl}/v1/instances/${id}/proxy/${port}/health`;
    await pollEvery(10, () => fetch(health, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => (await r.arrayBuffer(), r.status === 200)));
    return { createdMs, runningMs, readyMs: performance.now() - started };
  } finally {
    await callApi(baseUrl, key, "DELETE", `/v1/instances/${id}`);
  }
}

/** Calls `probe` every `intervalMs` until it returns true; throws after `timeoutMs`. */
export async function pollEvery(intervalMs: number, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await probe())) {
    if (performance.now() > deadline) throw new Error(`not done within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
