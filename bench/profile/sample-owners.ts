// Whose CPU a profile's samples are, in an isolate that runs several parts of the service (in
// `wrangler dev` the Worker and every Durable Object share one). Each frame's module is read from the
// bundle: esbuild heads every module it concatenates with a comment line naming its path
// (`// durable-objects/machine/machine-do.ts`), so a frame's line falls in the module whose head
// precedes it. A module's owner is given by the caller; shared code (a library, a helper every part
// uses) has none.
import type { CpuProfile } from "./inspector.ts";

export type Owner = "own" | "other";

export interface ModuleStart {
  /** 0-based line of the module's head comment, as V8's call frames count lines. */
  line: number;
  module: string;
}

export interface SampleCounts {
  /** Samples with a frame of an "own" module anywhere on their stack. */
  own: number;
  /** Samples with a frame of an "other" module and none of an "own" one. */
  other: number;
  /** Samples no frame assigns: garbage collection, `(program)` (the runtime's native work), native calls with no script below them, shared code alone. */
  unattributed: number;
  /** Samples the runtime marked idle. */
  idle: number;
}

const MODULE_HEAD = /^\/\/ ([\w@.+-]+(?:\/[\w@.+-]+)*\.[cm]?[jt]sx?)$/;

/** The head line of each module of an esbuild bundle, in order. */
export function bundleModules(source: string): ModuleStart[] {
  const starts: ModuleStart[] = [];
  source.split("\n").forEach((text, line) => {
    const module = MODULE_HEAD.exec(text)?.[1];
    if (module) starts.push({ line, module });
  });
  return starts;
}

/** The module a 0-based line of the bundle lies in; null before the first module's head. */
export function moduleAt(starts: readonly ModuleStart[], line: number): string | null {
  let low = 0;
  let high = starts.length - 1;
  let found: string | null = null;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (starts[middle]!.line <= line) {
      found = starts[middle]!.module;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

/**
 * Counts the samples of a profile by owner. A sample is "own" when any frame of its stack is in an own
 * module (the own code may be called by, or be a subclass of, code of another owner), else "other"
 * when any frame is in another owner's module, else unattributed.
 */
export function countOwners(
  profile: CpuProfile, modulesOf: (scriptId: string) => readonly ModuleStart[] | undefined, ownerOf: (module: string) => Owner | null,
): SampleCounts {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const ownerOfNode = new Map<number, Owner | "idle" | null>();
  const classify = (leaf: number): Owner | "idle" | null => {
    const known = ownerOfNode.get(leaf);
    if (known !== undefined) return known;
    let owner: Owner | "idle" | null = byId.get(leaf)?.callFrame.functionName === "(idle)" ? "idle" : null;
    for (let at: number | undefined = leaf; at !== undefined && owner !== "own" && owner !== "idle"; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const starts = frame.scriptId === undefined ? undefined : modulesOf(frame.scriptId);
      const module = starts === undefined ? null : moduleAt(starts, frame.lineNumber);
      const frameOwner = module === null ? null : ownerOf(module);
      if (frameOwner !== null) owner = frameOwner;
    }
    ownerOfNode.set(leaf, owner);
    return owner;
  };
  const counts: SampleCounts = { own: 0, other: 0, unattributed: 0, idle: 0 };
  for (const sample of profile.samples) {
    const owner = classify(sample);
    counts[owner ?? "unattributed"]++;
  }
  return counts;
}

/**
 * The own code's share of the isolate's busy time: own ÷ (own + other). The unattributed samples
 * (garbage collection, the runtime's native work) are shared out in the same proportion as the
 * attributed ones, which is the same share; idle samples count for no one.
 */
export function ownShare(counts: SampleCounts): number {
  const attributed = counts.own + counts.other;
  return attributed === 0 ? Number.NaN : counts.own / attributed;
}
