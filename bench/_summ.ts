import { readFileSync } from "node:fs";
interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[]; hitCount?: number }
const p = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const self = new Map<string, number>(); let total = 0;
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const counts = new Map<number, number>();
for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
for (const [nid, c] of counts) { const n = byId.get(nid)!; const k = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + c); total += c; }
// inclusive
const parent = new Map<number, number>(); for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map<string, number>();
for (const [nid, c] of counts) { const seen = new Set<string>(); let cur: number | undefined = nid; while (cur !== undefined) { const n = byId.get(cur)!; const k = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber}`; if (!seen.has(k)) { incl.set(k, (incl.get(k) ?? 0) + c); seen.add(k); } cur = parent.get(cur); } }
console.log("samples", total);
console.log("--- self"); for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((100 * v / total).toFixed(1).padStart(5), k);
console.log("--- inclusive"); for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log((100 * v / total).toFixed(1).padStart(5), k);
