// N launches at once from N accounts (made with the operator API), 70% rtx4090 and 30% h100-80gb,
// 1 GPU each, against the GPUs the dev machines have free: how fast each is answered, whether exactly
// the free GPUs got placed (the excess refused with 409 no_capacity), and when all placed ones run.
import { callApi, createAccount, type InstanceView } from "../http/api-client.ts";
import { summarize, type LatencySummary } from "../stats.ts";
import { pollEvery } from "./launch-timing.ts";

export interface BurstResult {
  requested: number;
  created: number;
  noCapacity: number;
  answers: LatencySummary;
  allRunningMs: number;
  summary: string;
}

interface GpuEntry {
  model: string;
  free_gpus: number;
}

interface LaunchAnswer {
  model: string;
  key: string;
  status: number;
  error: string | null;
  id: string | null;
  ms: number;
}

export async function concurrentLaunches(baseUrl: string, adminToken: string, count: number): Promise<BurstResult> {
  const accounts = [];
  for (let i = 0; i < count; i++) accounts.push(await createAccount(baseUrl, adminToken));
  const models = accounts.map((_, i) => (i % 10 < 7 ? "rtx4090" : "h100-80gb"));
  const free = await settledFreeGpus(baseUrl, accounts[0]!.key);
  const started = performance.now();
  const answers = await Promise.all(accounts.map(async ({ key }, i): Promise<LaunchAnswer> => {
    const model = models[i]!;
    const answer = await callApi<InstanceView & { error?: string }>(baseUrl, key, "POST", "/v1/instances", { gpu_model: model, gpu_count: 1, template: "vllm", model: "qwen2.5-0.5b-instruct" });
    return { model, key, status: answer.status, error: answer.body.error ?? null, id: answer.status === 201 ? answer.body.id : null, ms: performance.now() - started };
  }));
  const created = answers.filter((a) => a.id !== null);
  try {
    await Promise.all(created.map((a) => pollEvery(50, async () => (await callApi<InstanceView>(baseUrl, a.key, "GET", `/v1/instances/${a.id}`)).body.status === "running")));
    const allRunningMs = performance.now() - started;
    return {
      requested: count,
      created: created.length,
      noCapacity: answers.filter((a) => a.status === 409 && a.error === "no_capacity").length,
      answers: summarize(answers.map((a) => a.ms)),
      allRunningMs,
      summary: describe(answers, free),
    };
  } finally {
    await Promise.all(created.map((a) => callApi(baseUrl, a.key, "DELETE", `/v1/instances/${a.id}`)));
  }
}

/** Free GPUs per model once the fleet index has caught up with earlier destroys. */
async function settledFreeGpus(baseUrl: string, key: string): Promise<Map<string, number>> {
  let previous = "";
  let stableSince = performance.now();
  const read = async () => (await callApi<{ gpus: GpuEntry[] }>(baseUrl, key, "GET", "/v1/gpus")).body.gpus;
  let gpus = await read();
  // The index is updated asynchronously after a destroy: wait until it has not changed for 1.5 s.
  for (const deadline = performance.now() + 20_000; performance.now() < deadline; ) {
    const now = JSON.stringify(gpus.map((g) => [g.model, g.free_gpus]));
    if (now !== previous) [previous, stableSince] = [now, performance.now()];
    else if (performance.now() - stableSince >= 1500) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
    gpus = await read();
  }
  return new Map(gpus.map((g) => [g.model, g.free_gpus]));
}

function describe(answers: LaunchAnswer[], free: Map<string, number>): string {
  const byModel = [...new Set(answers.map((a) => a.model))].map((model) => {
    const mine = answers.filter((a) => a.model === model);
    const placed = mine.filter((a) => a.id !== null).length;
    const expected = Math.min(mine.length, free.get(model) ?? 0);
    return { model, requested: mine.length, free: free.get(model) ?? 0, placed, exact: placed === expected };
  });
  const others = answers.filter((a) => a.id === null && !(a.status === 409 && a.error === "no_capacity"));
  const parts = byModel.map((m) => `${m.model}: ${m.requested} asked, ${m.free} free, ${m.placed} placed${m.exact ? "" : " (NOT the number free!)"}`);
  const otherText = others.length === 0 ? "no other answers" : `other answers: ${others.map((a) => `${a.status} ${a.error ?? ""}`.trim()).join(", ")}`;
  return `${answers.length} launches at once from ${answers.length} accounts (1 GPU each) — ${parts.join("; ")}; the rest 409 no_capacity; ${otherText}; placement ${byModel.every((m) => m.exact) ? "exactly filled the free GPUs" : "did NOT match the free GPUs"}`;
}
