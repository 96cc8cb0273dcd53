import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStack } from "../scripts/dev/stack.ts";
const stateDir = mkdtempSync(join(tmpdir(), "gpr-bench-x-"));
const stack = await startStack({ port: 18911, stateDir, adminToken: "bench-admin", fresh: true,
  vars: { RATE_LIMIT_RPS: "1000000", BENCH_ROUTES: "1" }, agentEnv: { DEV_READY_DELAY_MS: "300", DEV_PULL_MS: "100" } });
const key = stack.setup.account.key;
const r = await fetch(`${stack.baseUrl}/v1/instances`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ gpu_model: "rtx4090", gpu_count: 1, template: "vllm", model: "qwen2.5-0.5b-instruct" }) });
const inst = await r.json() as { id: string };
for (;;) { const g = await (await fetch(`${stack.baseUrl}/v1/instances/${inst.id}`, { headers: { authorization: `Bearer ${key}` } })).json() as { status: string }; if (g.status === "running") break; await new Promise(r => setTimeout(r, 50)); }
writeFileSync("/tmp/benchx/info.json", JSON.stringify({ baseUrl: stack.baseUrl, key, id: inst.id, stateDir, worker: stack.worker.process.pid, agent: stack.agents.get("dev-1")!.process.pid }));
console.log("READY", stateDir);
process.on("SIGTERM", async () => { await stack.stop(); process.exit(0); });
setInterval(() => {}, 1e6);
