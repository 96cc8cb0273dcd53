// `launch --wait`: polls the instance and its latest event until it runs or fails, showing both as
// a live line on a terminal and as plain lines otherwise. With --ready it also waits until every
// HTTP port answers its readiness path, naming the ports still awaited.
import { ok, type GpuClient, type Instance } from "../client/index.ts";
import { ProgressLine, type IoStreams } from "./iostreams.ts";
import { sleep } from "./sleep.ts";

const POLL_MS = 1_000;
/** Statuses where waiting for `running` is over. */
const SETTLED = new Set<Instance["status"]>(["running", "error", "stopped", "destroyed"]);

/** The HTTP ports of a running instance that do not answer yet (none for an instance not running). */
function portsAwaited(instance: Instance): Instance["ports"] {
  return instance.status === "running" ? instance.ports.filter((port) => port.kind === "http" && !port.ready) : [];
}

/** The instance as last read, once it is running (with `ready`, and its ports answering) or can no longer get there by itself. */
export async function waitUntilSettled(api: GpuClient, io: IoStreams, launched: Instance, { ready = false } = {}): Promise<Instance> {
  const params = { params: { path: { id: launched.id } } };
  const progress = new ProgressLine(io);
  const started = Date.now();
  let instance = launched;
  progress.update(`${instance.id} ${instance.status}`);
  for (;;) {
    instance = await ok(api.GET("/v1/instances/{id}", params));
    // Read after the instance: the event that goes with what it shows (running, a port ready) is among them.
    const events = await ok(api.GET("/v1/instances/{id}/events", params));
    const awaited = ready ? portsAwaited(instance) : [];
    const event = events.items[0]?.message ?? "";
    const waiting = awaited.length > 0 ? `, waiting for ${awaited.map((p) => `port ${p.port} (${p.api})`).join(", ")}` : "";
    const elapsed = io.isStderrTty ? ` (${Math.round((Date.now() - started) / 1000)} s)` : "";
    progress.update(`${instance.id} ${instance.status}${waiting}${event ? `: ${event}` : ""}${elapsed}`);
    if (SETTLED.has(instance.status) && awaited.length === 0) break;
    await sleep(POLL_MS);
  }
  progress.finish();
  return instance;
}
