// Bounded memory under bulk transfer through our proxy: peak RSS growth of workerd (wrangler's
// process group) and of dev-1's agent (its process group, which holds its containers too) during a
// large upload and during a download whose reader is slow and then stops reading altogether.
import { request } from "node:http";
import { peakGrowth } from "../../test/e2e/support/rss.ts";
import { sampleRssPeaks } from "../stack/process-rss-peaks.ts";
import { exchange } from "../http/http-client.ts";
import type { Figure, Section } from "../results-model.ts";
import { routeUrl, type Route } from "../routes.ts";
import { MB, megabytesPerSecond } from "../stats.ts";
import type { SuiteContext } from "./suite-context.ts";

const SLOW_READ_PAUSE_MS = 5;
const STALL_MS = 1500;

export async function memorySuite(ctx: SuiteContext): Promise<Section> {
  const { memoryUploadBytes, slowReaderBytes } = ctx.config;
  const route = ctx.routes.ours;
  const pids = ctx.stack.pids();
  const groups = { workerd: pids.wranglerGroup, agent: pids.agentGroup };
  const processes = { "workerd worker": pids.workerdWorker ?? 0, "workerd front": pids.workerdFront ?? 0, "agent process": pids.agent, container: pids.container };
  ctx.log(`memory: ${memoryUploadBytes / MB} MB upload`);
  const uploadPeaks = sampleRssPeaks(processes);
  const upload = await peakGrowth(groups, async () => {
    const result = await exchange(routeUrl(route, "/echo/memory"), { method: "POST", headers: route.headers, uploadBytes: memoryUploadBytes, keepBody: true });
    const counted = result.status === 200 ? (JSON.parse(result.body) as { body_bytes: number }).body_bytes : -1;
    if (counted !== memoryUploadBytes) throw new Error(`upload got ${result.status}; the upstream counted ${counted} bytes`);
    return result.ms;
  });
  const uploadByProcess = uploadPeaks.stop();
  ctx.log(`memory: slow reader (${slowReaderBytes / MB} MB at ${SLOW_READ_PAUSE_MS} ms per chunk, then ${STALL_MS} ms stalled)`);
  const slowPeaks = sampleRssPeaks(processes);
  const slow = await peakGrowth(groups, () => slowRead(route, slowReaderBytes));
  const slowByProcess = slowPeaks.stop();
  const mb = (bytes: number | undefined) => (bytes === undefined ? null : bytes / MB);
  const perProcess = (run: string, label: string, growth: Record<string, number>): Figure[] =>
    Object.entries(growth).map(([name, bytes]) => ({
      id: `memory.${run}.process.${name.replace(" ", "_")}`, label: `${label}: ${name} alone`, unit: "MB", better: "lower", ours: mb(bytes), baselines: {},
    }));
  return {
    id: "memory",
    title: "Memory: peak RSS growth through our proxy (target ≤ 64 MB each)",
    baselineKeys: [],
    figures: [
      { id: "memory.upload.workerd", label: `${memoryUploadBytes / MB} MB upload: workerd`, unit: "MB", better: "lower", ours: mb(upload.growthBytes.workerd), baselines: {} },
      { id: "memory.upload.agent", label: `${memoryUploadBytes / MB} MB upload: agent`, unit: "MB", better: "lower", ours: mb(upload.growthBytes.agent), baselines: {} },
      { id: "memory.upload.rate", label: `${memoryUploadBytes / MB} MB upload: rate`, unit: "MB/s", better: "higher", ours: megabytesPerSecond(memoryUploadBytes, upload.result), baselines: {} },
      { id: "memory.slow_reader.workerd", label: "slow-reader download: workerd", unit: "MB", better: "lower", ours: mb(slow.growthBytes.workerd), baselines: {} },
      { id: "memory.slow_reader.agent", label: "slow-reader download: agent", unit: "MB", better: "lower", ours: mb(slow.growthBytes.agent), baselines: {} },
      ...perProcess("upload", `${memoryUploadBytes / MB} MB upload`, uploadByProcess),
      ...perProcess("slow_reader", "slow-reader download", slowByProcess),
    ],
    notes: [
      `upload: ${memoryUploadBytes / MB} MB POST /echo/… through the proxy${ctx.config.mode === "quick" ? " (quick mode; --full uploads 512 MB)" : ""}; slow reader: GET /bytes?n=1 GB, reading ${slowReaderBytes / MB} MB with a ${SLOW_READ_PAUSE_MS} ms pause after each chunk, then not reading for ${STALL_MS} ms before hanging up`,
      "RSS of each process group sampled every 100 ms (test/e2e/support/rss.ts); growth = peak − value before. The targets apply to the groups as the issue defines them; the agent's group includes the dev container process (a node HTTP server hashing the body), so each process is also shown alone",
    ],
  };
}

function slowRead(route: Route, readBytes: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(routeUrl(route, `/bytes?n=${1024 * MB}`), { headers: route.headers }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`status ${res.statusCode}`));
      let read = 0;
      res.on("data", (chunk: Buffer) => {
        read += chunk.byteLength;
        res.pause();
        if (read < readBytes) return void setTimeout(() => res.resume(), SLOW_READ_PAUSE_MS);
        setTimeout(() => {
          req.destroy();
          resolve();
        }, STALL_MS);
      });
      res.on("error", () => undefined);
    });
    req.on("error", (error) => (req.destroyed ? undefined : reject(error)));
    req.end();
  });
}
