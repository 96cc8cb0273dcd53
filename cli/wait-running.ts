// `launch --wait`: polls the instance and its latest event until it runs or fails, showing both as
// a live line on a terminal and as plain lines otherwise.
import { ok, type GpuClient, type Instance } from "../client/index.ts";
import { ProgressLine, type IoStreams } from "./iostreams.ts";
import { sleep } from "./sleep.ts";

const POLL_MS = 1_000;
/** Statuses where waiting for `running` is over. */
const SETTLED = new Set<Instance["status"]>(["running", "error", "stopped", "destroyed"]);

/** The instance as last read, once it is running or can no longer get there by itself. */
export async function waitUntilSettled(api: GpuClient, io: IoStreams, launched: Instance): Promise<Instance> {
  const params = { params: { path: { id: launched.id } } };
  const progress = new ProgressLine(io);
  const started = Date.now();
  let instance = launched;
  progress.update(`${instance.id} ${instance.status}`);
  for (;;) {
    const [latest, events] = await Promise.all([ok(api.GET("/v1/instances/{id}", params)), ok(api.GET("/v1/instances/{id}/events", params))]);
    instance = latest;
    const event = events.items[0]?.message ?? "";
    const elapsed = io.isStderrTty ? ` (${Math.round((Date.now() - started) / 1000)} s)` : "";
    progress.update(`${instance.id} ${instance.status}${event ? `: ${event}` : ""}${elapsed}`);
    if (SETTLED.has(instance.status)) break;
    await sleep(POLL_MS);
  }
  progress.finish();
  return instance;
}
