// The layering rules, checked over the import graph: every folder imports only from itself and from
// the layers beneath it; an object's folder is private to it but for its entry point (what objects
// promise each other lives in durable-objects/contracts/); no import circle, of any length; and
// production code never imports a dev folder (dev-code.ts), which only the dev entries, tests and
// tooling use. Run by `npm test` (scripts/layers.test.ts) and by `node scripts/layers.ts`.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { DEV_FOLDERS } from "./dev-code.ts";

/** Each folder and the folders it may import from besides itself, most specific first. */
export const LAYERS: readonly { folder: string; mayImport: readonly string[] }[] = [
  // The floor: what the web's standards say (RFC 9110's hop-by-hop fields), the same on every side of
  // the service. It imports nothing, and every layer may import it (FLOOR).
  { folder: "standards/", mayImport: [] },
  { folder: "protocol/", mayImport: [] },
  { folder: "core/", mayImport: [] },
  // The dev agent: its entry and stand-ins, on top of the agent.
  { folder: "host-agent/dev/", mayImport: ["host-agent/", "protocol/"] },
  { folder: "host-agent/", mayImport: ["protocol/"] },
  // What crosses an object boundary: messages, request shapes, shared constants and types.
  { folder: "durable-objects/contracts/", mayImport: ["core/", "protocol/"] },
  { folder: "durable-objects/", mayImport: ["core/", "protocol/"] },
  // The dev Worker: its entry, the bench's routes and the dev MachineDO, on top of the Worker.
  { folder: "workers/dev/", mayImport: ["workers/", "durable-objects/", "core/", "protocol/"] },
  { folder: "workers/http/", mayImport: ["core/"] },
  // The one forwarding step to an instance, for every way in (the path proxy, the apps origins, ...).
  { folder: "workers/forward/", mayImport: ["workers/http/", "durable-objects/", "core/", "protocol/"] },
  { folder: "workers/proxy/", mayImport: ["workers/forward/", "workers/http/", "durable-objects/", "core/", "protocol/"] },
  { folder: "workers/api/", mayImport: ["workers/http/", "durable-objects/", "core/", "protocol/"] },
  { folder: "workers/apps/", mayImport: ["workers/forward/", "workers/http/", "durable-objects/", "core/", "protocol/"] },
  { folder: "workers/", mayImport: ["durable-objects/", "core/", "protocol/"] },
  // The typed client stands apart: it speaks to the service over HTTP only (generated types included),
  // so it runs in a browser too. The CLI builds on it alone.
  { folder: "client/", mayImport: [] },
  { folder: "cli/", mayImport: ["client/"] },
  // The web dashboard runs in the browser and speaks to the service through the typed client alone.
  { folder: "dashboard/", mayImport: ["client/"] },
  // Tooling on top of everything: the dev stack, tests and benchmarks drive the whole service.
  { folder: "scripts/", mayImport: ["*"] },
  { folder: "bench/", mayImport: ["*"] },
  { folder: "test/", mayImport: ["*"] },
];

/** The Durable Objects' folders: private to their object, whose entry point is the folder's `*-do.ts`. */
export const OBJECT_FOLDERS = ["durable-objects/account/", "durable-objects/machine/", "durable-objects/fleet/", "durable-objects/email/", "durable-objects/payment/", "durable-objects/person/"];

export interface Violation {
  file: string;
  imports: string;
  rule: string;
}

const IMPORT = /(?:^|[\s;])(?:import|export)\b[^"'`]*?(?:from\s*)?["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/** The relative imports of one source text, resolved against the file's folder (repo-relative). */
export function relativeImports(file: string, source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2];
    if (specifier) found.push(normalize(join(dirname(file), specifier)));
  }
  return found;
}

/** The test runners' modules: only tests and the tooling on top (test/, bench/, scripts/) import them. */
const TEST_RUNNER = /(?:^|[\s;])(?:import|export)\b[^"'`]*?(?:from\s*)?["']((?:vitest|@cloudflare\/vitest-plugin)(?:\/[^"']*)?|cloudflare:test)["']/g;

/** The test runner modules a source text imports. */
export function testRunnerImports(source: string): string[] {
  return [...source.matchAll(TEST_RUNNER)].map((match) => match[1]!);
}

/** Folders every layer may import. */
const FLOOR = ["standards/"];

const layerOf = (file: string) => LAYERS.find((layer) => file.startsWith(layer.folder));
const isDev = (file: string) => DEV_FOLDERS.some((folder) => file.startsWith(folder));

/** Tests stand on top of what they test: a test file, or a helper of the tests, may import anything. */
const isTest = (file: string) => file.endsWith(".test.ts") || file.startsWith("test/");

/** Every violation of the rules in `sources` (repo-relative path -> source text). */
export function findViolations(sources: ReadonlyMap<string, string>): Violation[] {
  return [...layerViolations(sources), ...objectFolderViolations(sources), ...importCircles(sources)];
}

/** Imports that point up a layer or sideways into a folder the rule does not allow. */
function layerViolations(sources: ReadonlyMap<string, string>): Violation[] {
  const violations: Violation[] = [];
  for (const [file, source] of sources) {
    if (file.endsWith(".test.ts")) continue;
    const layer = layerOf(file);
    if (!layer) {
      violations.push({ file, imports: "", rule: "the file's folder has no place in LAYERS" });
      continue;
    }
    if (layer.mayImport.includes("*")) continue;
    for (const runner of testRunnerImports(source)) {
      violations.push({ file, imports: runner, rule: "only tests and tooling may import a test runner: test helpers belong in test/support/" });
    }
    const production = !isDev(file);
    for (const target of relativeImports(file, source)) {
      if (production && isDev(target)) {
        violations.push({ file, imports: target, rule: `production code may not import dev code (${DEV_FOLDERS.join(", ")}): it would ship in a production build` });
        continue;
      }
      // workers/ owns its subfolders, but workers/api and workers/proxy do not own each other.
      const allowed = [layer.folder, ...layer.mayImport, ...FLOOR].some((folder) => target.startsWith(folder));
      if (!allowed) {
        violations.push({ file, imports: target, rule: `${layer.folder} may import only ${[layer.folder, ...layer.mayImport, ...FLOOR].join(", ")}` });
      }
    }
  }
  return violations;
}

const objectFolderOf = (file: string) => OBJECT_FOLDERS.find((folder) => file.startsWith(folder));
const isEntryPoint = (file: string, folder: string) => /^[^/]+-do\.ts$/.test(file.slice(folder.length));

/** Imports of an object's private module (anything of its folder but its `*-do.ts`) from outside the folder. */
function objectFolderViolations(sources: ReadonlyMap<string, string>): Violation[] {
  const violations: Violation[] = [];
  for (const [file, source] of sources) {
    if (isTest(file)) continue;
    for (const target of relativeImports(file, source)) {
      const folder = objectFolderOf(target);
      if (!folder || file.startsWith(folder) || isEntryPoint(target, folder)) continue;
      violations.push({ file, imports: target, rule: `${folder} is private to its object: import its entry point, or what it promises from durable-objects/contracts/` });
    }
  }
  return violations;
}

/** Import circles (type-only imports included), each reported at the import that closes it. */
function importCircles(sources: ReadonlyMap<string, string>): Violation[] {
  const edges = new Map<string, string[]>();
  for (const [file, source] of sources) edges.set(file, [...new Set(relativeImports(file, source))].filter((target) => sources.has(target)));
  const violations: Violation[] = [];
  // Depth-first; a file is "open" while the walk is inside it, so an edge to an open file closes a circle.
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    path.push(file);
    for (const target of edges.get(file) ?? []) {
      if (state.get(target) === "open") {
        const circle = [...path.slice(path.indexOf(target)), target];
        violations.push({ file, imports: target, rule: `import circle: ${circle.join(" -> ")}` });
      } else if (!state.has(target)) {
        visit(target);
      }
    }
    path.pop();
    state.set(file, "done");
  };
  for (const file of [...edges.keys()].sort()) if (!state.has(file)) visit(file);
  return violations;
}

/** Every TypeScript source under the layered folders of `root`, by repo-relative path. */
export function readSources(root: string): Map<string, string> {
  const sources = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) sources.set(relative(root, path), readFileSync(path, "utf8"));
    }
  };
  for (const { folder } of LAYERS) walk(join(root, folder));
  return sources;
}

if (import.meta.main) {
  const violations = findViolations(readSources(join(import.meta.dirname, "..")));
  for (const v of violations) console.error(`${v.file} imports ${v.imports}: ${v.rule}`);
  process.exit(violations.length === 0 ? 0 : 1);
}
