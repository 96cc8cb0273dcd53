// Sequential small requests to several URLs, interleaved: round after round, one request to each URL
// in turn, each on its own kept-alive connection. Noise from the rest of a shared machine then falls
// on every URL alike, so their ratios within a run hold even when absolute times drift.
import { exchange, keepAliveAgent } from "../http/http-client.ts";
import { summarize, type LatencySummary } from "../stats.ts";

export interface Target {
  url: string;
  headers: Record<string, string>;
  /** The status every answer must have. */
  status: number;
}

export async function interleavedGets(targets: readonly Target[], warmUp: number, rounds: number): Promise<LatencySummary[]> {
  const agents = targets.map(() => keepAliveAgent(1));
  const samples: number[][] = targets.map(() => []);
  try {
    for (let round = 0; round < warmUp + rounds; round++) {
      for (const [i, target] of targets.entries()) {
        const result = await exchange(target.url, { headers: target.headers, agent: agents[i] });
        if (result.status !== target.status) throw new Error(`GET ${new URL(target.url).pathname} answered ${result.status}, not ${target.status}`);
        if (round >= warmUp) samples[i]!.push(result.ms);
      }
    }
    return samples.map((s) => summarize(s));
  } finally {
    for (const agent of agents) agent.destroy();
  }
}
