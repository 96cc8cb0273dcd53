// Condenses a V8 CPU profile to the functions that cost the most: self time (where the CPU was) and
// inclusive time (which call paths led there), as shares of all samples including idle.
import type { CpuProfile } from "./inspector.ts";

export interface ProfileLine {
  name: string;
  share: number;
}

export interface ProfileSummary {
  samples: number;
  idleShare: number;
  self: ProfileLine[];
  inclusive: ProfileLine[];
}

export function summarizeProfile(profile: CpuProfile, top = 15): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, count] of hits) {
    const leaf = byId.get(id);
    if (!leaf) continue;
    self.set(nameOf(leaf), (self.get(nameOf(leaf)) ?? 0) + count);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = nameOf(byId.get(at)!);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + count);
    }
  }
  const total = profile.samples.length || 1;
  const rank = (map: Map<string, number>) =>
    [...map].filter(([name]) => name !== "(root)").sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, count]) => ({ name, share: count / total }));
  return { samples: profile.samples.length, idleShare: (self.get("(idle)") ?? 0) / total, self: rank(self), inclusive: rank(inclusive) };
}

function nameOf(node: CpuProfile["nodes"][number]): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.split("/").slice(-2).join("/");
  return file ? `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}` : functionName || "(anonymous)";
}

export function renderProfile(title: string, summary: ProfileSummary): string {
  const line = (l: ProfileLine) => `  ${(l.share * 100).toFixed(1).padStart(5)}%  ${l.name}`;
  return [
    `${title}: ${summary.samples} samples, ${(summary.idleShare * 100).toFixed(0)}% idle`,
    " self:", ...summary.self.map(line),
    " inclusive:", ...summary.inclusive.map(line),
  ].join("\n");
}
