// `--profile`: V8 CPU profiles of the Worker's isolate (the MachineDO, the AccountDO and the Worker
// share it in wrangler dev) and of dev-1's agent while traffic runs through our proxy: a download,
// an upload, and small requests at 16 concurrent; and while `GET /v1/me` runs back to back (the
// control plane's read path). Reports the functions that cost the most.
import { exchange, keepAliveAgent } from "../http/http-client.ts";
import { nodeInspectorUrl, workerInspectorUrl } from "../profile/inspector-url.ts";
import { profileWhile } from "../profile/inspector.ts";
import { renderProfile, summarizeProfile } from "../profile/summary.ts";
import type { Section } from "../results-model.ts";
import { routeUrl } from "../routes.ts";
import { MB } from "../stats.ts";
import type { SuiteContext } from "./suite-context.ts";

const TOP_FUNCTIONS = 12;
const SMALL_REQUESTS_MS = 3000;

export async function cpuProfilesSuite(ctx: SuiteContext): Promise<Section> {
  const route = ctx.routes.ours;
  const bytes = Math.min(ctx.config.transferBytes, 64 * MB);
  const workloads: [string, () => Promise<unknown>][] = [
    [`download ${bytes / MB} MB`, () => exchange(routeUrl(route, `/fast/bytes?n=${bytes}`), { headers: route.headers })],
    [`upload ${bytes / MB} MB`, () => exchange(routeUrl(route, "/fast/sink"), { method: "POST", headers: route.headers, uploadBytes: bytes })],
    [`GET /fast/health, 16 concurrent for ${SMALL_REQUESTS_MS / 1000} s`, () => smallRequests(routeUrl(route, "/fast/health"), route.headers, 16)],
    [`GET /v1/me, sequential for ${SMALL_REQUESTS_MS / 1000} s`, () => smallRequests(`${ctx.stack.baseUrl}/v1/me`, route.headers, 1)],
  ];
  const workerPid = ctx.stack.pids().workerdWorker;
  const targets: [string, string | null][] = [
    ["workerd (Worker + Durable Objects)", workerPid === null ? null : await workerInspectorUrl(workerPid)],
    ["agent dev-1", nodeInspectorUrl(ctx.stack.stack.agents.get("dev-1")?.output() ?? "")],
  ];
  const notes: string[] = [];
  for (const [process, url] of targets) {
    if (url === null) {
      notes.push(`${process}: no inspector found, not profiled`);
      continue;
    }
    for (const [name, work] of workloads) {
      ctx.log(`profile: ${process} during ${name}`);
      try {
        const { profile } = await profileWhile(url, work);
        notes.push(...renderProfile(`${process} during ${name}`, summarizeProfile(profile, TOP_FUNCTIONS)).split("\n"));
      } catch (error) {
        notes.push(`${process} during ${name}: ${(error as Error).message}`);
      }
    }
  }
  return { id: "profile.v8", title: "Profile: V8 CPU profiles through our proxy (shares of samples)", baselineKeys: [], figures: [], notes };
}

async function smallRequests(url: string, headers: Record<string, string>, concurrency: number): Promise<void> {
  const agent = keepAliveAgent(concurrency);
  const deadline = performance.now() + SMALL_REQUESTS_MS;
  try {
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) await exchange(url, { headers, agent });
    }));
  } finally {
    agent.destroy();
  }
}
