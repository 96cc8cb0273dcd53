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
  const { memoryUploadBytes } = ctx.config;
  // Twice: a process's first large transfer grows its heap and allocator to their working size once
  // (in a fresh stack; little once other suites ran); the second shows what a transfer holds beyond it.
  const first = await measure(ctx, "first");
  const again = await measure(ctx, "again");
  return {
    id: "memory",
    title: "Memory: peak RSS growth through our proxy (target ≤ 64 MB each; ≤ 32 MB per process of ours, host ceiling)",
    baselineKeys: [],
    figures: [...figuresOf(again, memoryUploadBytes, "", ""), ...figuresOf(first, memoryUploadBytes, "first.", ", first time")],
    notes: [
      `upload: ${memoryUploadBytes / MB} MB POST /echo/… through the proxy${ctx.config.mode === "quick" ? " (quick mode; --full uploads 512 MB)" : ""}; slow reader: GET /bytes?n=1 GB, reading ${ctx.config.slowReaderBytes / MB} MB with a ${SLOW_READ_PAUSE_MS} ms pause after each chunk, then not reading for ${STALL_MS} ms before hanging up`,
      "RSS of each process group sampled every 100 ms (test/e2e/support/rss.ts); growth = peak − value before. The targets apply to the groups as the issue defines them; the agent's group includes the dev container process (a node HTTP server hashing the body), so each process is also shown alone",
      "each run twice, the figures marked \"first time\" first: in a fresh stack (--only memory) a process's first large transfer grows its heap and allocator to their working size, which the second reuses; the host ceiling's targets read both",
    ],
  };
}

interface Measured {
  upload: { growthBytes: Record<string, number | undefined>; result: number };
  uploadByProcess: Record<string, number>;
  slow: { growthBytes: Record<string, number | undefined> };
  slowByProcess: Record<string, number>;
}

async function measure(ctx: SuiteContext, label: string): Promise<Measured> {
  const { memoryUploadBytes, slowReaderBytes } = ctx.config;
  const route = ctx.routes.ours;
  const pids = ctx.stack.pids();
  const groups = { workerd: pids.wranglerGroup, agent: pids.agentGroup };
  const processes = { "workerd worker": pids.workerdWorker ?? 0, "workerd front": pids.workerdFront ?? 0, "agent process": pids.agent, container: pids.container };
  ctx.log(`memory (${label}): ${memoryUploadBytes / MB} MB upload`);
  const uploadPeaks = sampleRssPeaks(processes);
  const upload = await peakGrowth(groups, async () => {
    const result = await exchange(routeUrl(route, "/echo/memory"), { method: "POST", headers: route.headers, uploadBytes: memoryUploadBytes, keepBody: true });
    const counted = result.status === 200 ? (JSON.parse(result.body) as { body_bytes: number }).body_bytes : -1;
    if (counted !== memoryUploadBytes) throw new Error(`upload got ${result.status}; the upstream counted ${counted} bytes`);
    return result.ms;
  });
  const uploadByProcess = uploadPeaks.stop();
  ctx.log(`memory (${label}): slow reader (${slowReaderBytes / MB} MB at ${SLOW_READ_PAUSE_MS} ms per chunk, then ${STALL_MS} ms stalled)`);
  const slowPeaks = sampleRssPeaks(processes);
  const slow = await peakGrowth(groups, () => slowRead(route, slowReaderBytes));
  return { upload, uploadByProcess, slow, slowByProcess: slowPeaks.stop() };
}

/** `prefix` of the ids and `suffix` of the labels: "" for the run the targets read. */
function figuresOf(run: Measured, uploadBytes: number, prefix: string, suffix: string): Figure[] {
  const mb = (bytes: number | undefined) => (bytes === undefined ? null : bytes / MB);
  const figure = (id: string, label: string, unit: string, better: Figure["better"], ours: number | null): Figure => ({ id: `memory.${prefix}${id}`, label: `${label}${suffix}`, unit, better, ours, baselines: {} });
  const upload = `${uploadBytes / MB} MB upload`;
  const perProcess = (id: string, label: string, growth: Record<string, number>): Figure[] =>
    Object.entries(growth).map(([name, bytes]) => figure(`${id}.process.${name.replace(" ", "_")}`, `${label}: ${name} alone`, "MB", "lower", mb(bytes)));
  return [
    figure("upload.workerd", `${upload}: workerd`, "MB", "lower", mb(run.upload.growthBytes.workerd)),
    figure("upload.agent", `${upload}: agent`, "MB", "lower", mb(run.upload.growthBytes.agent)),
    figure("upload.rate", `${upload}: rate`, "MB/s", "higher", megabytesPerSecond(uploadBytes, run.upload.result)),
    figure("slow_reader.workerd", "slow-reader download: workerd", "MB", "lower", mb(run.slow.growthBytes.workerd)),
    figure("slow_reader.agent", "slow-reader download: agent", "MB", "lower", mb(run.slow.growthBytes.agent)),
    ...perProcess("upload", upload, run.uploadByProcess),
    ...perProcess("slow_reader", "slow-reader download", run.slowByProcess),
  ];
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
