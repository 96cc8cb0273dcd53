// Profile of a small proxied request, hop by hop: the same sequential GET stopped at successive
// depths of the path (Worker only → + the MachineDO's admission → + the agent round trip → + the
// upstream; and the slow path's AccountDO hop beside them), so the difference between two rungs is
// what that hop costs.
import type { Figure, Section } from "../results-model.ts";
import { CONTAINER_PORT } from "../stack/bench-stack.ts";
import { interleavedGets } from "./interleaved.ts";
import type { SuiteContext } from "./suite-context.ts";

interface Rung {
  id: string;
  label: string;
  url: string;
  headers: Record<string, string>;
  status: number;
  /** The rung this one extends, and what it adds on top of it. */
  from: string | null;
  adds: string;
}

const WARM_UP_REQUESTS = 20;
/** A port the instance does not map: the agent answers "unavailable" without touching an upstream. */
const UNMAPPED_PORT = 9999;

export async function hopLadderSuite(ctx: SuiteContext): Promise<Section> {
  const { baseUrl, key, instanceId, container } = ctx.stack;
  const auth = { authorization: `Bearer ${key}` };
  const secretAt = key.lastIndexOf("_") + 1;
  // Same account, wrong secret: the MachineDO cannot judge it and the Worker asks the AccountDO (401).
  const wrongKey = { authorization: `Bearer ${key.slice(0, secretAt)}${"a".repeat(32)}` };
  // An instance token of the right shape and account but wrong: the MachineDO refuses it alone (401).
  const wrongToken = { authorization: `Bearer gpi_${key.slice("gpk_".length, secretAt - 1)}_${"a".repeat(32)}` };
  const proxy = (port: number) => `${baseUrl}/v1/instances/${instanceId}/proxy/${port}/fast/health`;
  const rungs: Rung[] = [
    { id: "direct", label: "direct to the container", url: `http://127.0.0.1:${container.hostPort}/fast/health`, headers: {}, status: 200, from: null, adds: "the upstream alone" },
    { id: "noop", label: "Worker route /bench/noop", url: `${baseUrl}/bench/noop`, headers: {}, status: 204, from: null, adds: "wrangler's front workerd + the Worker" },
    { id: "passthrough", label: "Worker fetch to the container", url: `${baseUrl}/bench/passthrough/${container.hostPort}/fast/health`, headers: {}, status: 200, from: "noop", adds: "a subrequest to the upstream" },
    { id: "machine", label: "proxy, wrong instance token → 401", url: proxy(CONTAINER_PORT), headers: wrongToken, status: 401, from: "noop", adds: "the rate limiter, MachineDO.fetch and its admission (an HMAC of the instance id for a token), the refusal back" },
    { id: "account", label: "proxy, wrong key → 401", url: proxy(CONTAINER_PORT), headers: wrongKey, status: 401, from: "machine", adds: "the slow path: SHA-256 of the key, then AccountDO.openProxy after the MachineDO's ask_account" },
    { id: "agent", label: `proxy, unmapped port ${UNMAPPED_PORT} → 502`, url: proxy(UNMAPPED_PORT), headers: auth, status: 502, from: "machine", adds: "SHA-256 of the key and the key set, then http_request to the agent + its refusal back, over the agent's WebSocket" },
    { id: "full", label: "proxy GET /fast/health → 200", url: proxy(CONTAINER_PORT), headers: auth, status: 200, from: "agent", adds: "the agent's request to the container + http_response, data and end frames back" },
  ];
  ctx.log("profile: latency ladder");
  const figures: Figure[] = [];
  const notes: string[] = [`${ctx.config.sequentialRequests} sequential requests per rung, interleaved (one to each rung in turn, each on its own kept-alive connection) after ${WARM_UP_REQUESTS} warm-up rounds`];
  let summaries;
  try {
    summaries = await interleavedGets(rungs, WARM_UP_REQUESTS, ctx.config.sequentialRequests);
  } catch (error) {
    notes.push(`not measured (${(error as Error).message})`);
    return { id: "profile.ladder", title: "Profile: one small proxied request, hop by hop (sequential)", baselineKeys: [], figures, notes };
  }
  const p50s = new Map<string, number>();
  for (const [i, rung] of rungs.entries()) {
    const { p50, p99 } = summaries[i]!;
    figures.push({ id: `profile.ladder.${rung.id}.p50`, label: `${rung.label} p50`, unit: "ms", better: "lower", ours: p50, baselines: {} });
    figures.push({ id: `profile.ladder.${rung.id}.p99`, label: `${rung.label} p99`, unit: "ms", better: "lower", ours: p99, baselines: {} });
    p50s.set(rung.id, p50);
    const base = rung.from === null ? undefined : p50s.get(rung.from);
    const delta = base === undefined ? `${p50.toFixed(2)} ms` : `${p50 - base >= 0 ? "+" : "−"}${Math.abs(p50 - base).toFixed(2)} ms over "${rung.from}"`;
    notes.push(`${rung.label}: ${delta} p50 — ${rung.adds}`);
  }
  return { id: "profile.ladder", title: "Profile: one small proxied request, hop by hop (sequential)", baselineKeys: [], figures, notes };
}
