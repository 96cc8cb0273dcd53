// Peak RSS growth of single processes, sampled alongside test/e2e/support/rss.ts's process-group
// sampler: the agent's group also holds its containers, so the agent process alone is told apart.
import { processRssBytes } from "./procfs.ts";

export interface RssPeaks {
  /** Stops sampling; growth = peak − the value at start, per name. */
  stop(): Record<string, number>;
}

export function sampleRssPeaks(pids: Record<string, number>, intervalMs = 100): RssPeaks {
  const base = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processRssBytes(pid)]));
  const peak = { ...base };
  const sample = () => {
    for (const [name, pid] of Object.entries(pids)) peak[name] = Math.max(peak[name]!, processRssBytes(pid));
  };
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return Object.fromEntries(Object.entries(peak).map(([name, value]) => [name, value - base[name]!]));
    },
  };
}
