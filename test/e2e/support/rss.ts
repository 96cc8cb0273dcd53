// Resident memory of a process group (wrangler's workerd processes, an agent), sampled from /proc.
import { readdirSync, readFileSync } from "node:fs";

export function groupRssBytes(groupId: number): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== groupId) continue;
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      total += Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    } catch {
      // The process ended while we read it.
    }
  }
  return total;
}

/** Samples peak RSS growth of several groups while `work` runs. */
export async function peakGrowth<T>(groups: Record<string, number>, work: () => Promise<T>): Promise<{ result: T; growthBytes: Record<string, number> }> {
  const base = Object.fromEntries(Object.entries(groups).map(([name, id]) => [name, groupRssBytes(id)]));
  const peak = { ...base };
  const timer = setInterval(() => {
    for (const [name, id] of Object.entries(groups)) peak[name] = Math.max(peak[name]!, groupRssBytes(id));
  }, 100);
  try {
    const result = await work();
    return { result, growthBytes: Object.fromEntries(Object.entries(peak).map(([name, value]) => [name, value - base[name]!])) };
  } finally {
    clearInterval(timer);
  }
}
