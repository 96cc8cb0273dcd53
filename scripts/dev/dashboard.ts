// The dashboard's static files, built by Vite into dist/dashboard (wrangler.toml's [assets]
// directory). Stacks of tests running side by side serve it: so the stack builds it only when it is
// missing, and `npm run dev` when a source is newer, each into a folder of its own that then takes
// the served one's place (a Vite build empties its folder first: served, that read as 404 pages).
import { existsSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "vite";

const ROOT = resolve(import.meta.dirname, "../..");
const OUT_DIR = join(ROOT, "dist/dashboard");
const BUILT_PAGE = join(OUT_DIR, "index.html");
/** What the bundle is made of: the dashboard, the typed client, and the installed packages. */
const SOURCES = [join(ROOT, "dashboard"), join(ROOT, "client"), join(ROOT, "package-lock.json")];

/** As `npm run build`, swapped in whole. */
async function buildDashboard(): Promise<void> {
  const next = `${OUT_DIR}.next-${process.pid}`;
  const previous = `${OUT_DIR}.previous-${process.pid}`;
  await build({ configFile: join(ROOT, "dashboard/vite.config.ts"), build: { outDir: next, emptyOutDir: true } });
  if (existsSync(OUT_DIR)) renameSync(OUT_DIR, previous);
  renameSync(next, OUT_DIR);
  rmSync(previous, { recursive: true, force: true });
}

/** wrangler dev does not start without the assets folder. */
export async function buildDashboardIfMissing(): Promise<void> {
  if (!existsSync(BUILT_PAGE)) await buildDashboard();
}

/** Builds unless the build is newer than every source. */
export async function buildDashboardIfStale(): Promise<void> {
  if (existsSync(BUILT_PAGE) && newestChangeMs(SOURCES) <= statSync(BUILT_PAGE).mtimeMs) return;
  await buildDashboard();
}

function newestChangeMs(paths: string[]): number {
  let newest = 0;
  for (const path of paths) {
    if (!existsSync(path)) continue;
    const stat = statSync(path);
    newest = Math.max(newest, stat.mtimeMs);
    if (stat.isDirectory()) newest = Math.max(newest, newestChangeMs(readdirSync(path).map((name) => join(path, name))));
  }
  return newest;
}
