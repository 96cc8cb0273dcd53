// The dev container's usage, told to the local runtime (its parent) over the IPC channel once a
// second: its CPU time and memory, as an engine would read them for a container, and the requests
// its servers have taken (readiness probes left out), which the dev host's synthetic GPUs turn into
// utilisation, memory and power.
import type { IncomingMessage, Server } from "node:http";
import { PROBE_USER_AGENT } from "../../readiness-probes.ts";

export const USAGE_REPORT_MS = 1_000;

/** The message the local runtime reads (local-runtime.ts). */
export interface DevUsageReport {
  type: "dev_usage";
  cpu_ns: number;
  memory_bytes: number;
  requests_served: number;
}

/**
 * Counts every request and upgrade of `servers` but the agent's readiness probes (a probe is not use:
 * counted, one every 10 s kept an untouched instance's GPUs at 9 %, over the idle line) and reports the
 * totals while a parent listens.
 */
export function reportUsageToParent(servers: Server[]): void {
  let requests = 0;
  const count = (req: IncomingMessage) => {
    if (req.headers["user-agent"] !== PROBE_USER_AGENT) requests++;
  };
  for (const server of servers) {
    server.on("request", count);
    server.on("upgrade", count);
  }
  if (!process.send) return;
  const report = () => {
    const cpu = process.cpuUsage();
    const message: DevUsageReport = { type: "dev_usage", cpu_ns: (cpu.user + cpu.system) * 1_000, memory_bytes: process.memoryUsage.rss(), requests_served: requests };
    if (process.connected) process.send?.(message);
  };
  report();
  setInterval(report, USAGE_REPORT_MS).unref();
}

/** A message from the dev container, if it is a usage report. */
export function asUsageReport(message: unknown): DevUsageReport | null {
  const report = message as Partial<DevUsageReport> | null;
  const counts = [report?.cpu_ns, report?.memory_bytes, report?.requests_served];
  return report?.type === "dev_usage" && counts.every((n) => typeof n === "number" && Number.isFinite(n) && n >= 0) ? (report as DevUsageReport) : null;
}
