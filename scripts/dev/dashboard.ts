// The dashboard's static files, built by Vite into dist/dashboard (wrangler.toml's [assets]
// directory). `npm run dev` and the stack rebuild them only when a source is newer than the build:
// a rebuild empties the folder, and other stacks (tests running side by side) may be serving it.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "vite";

const ROOT = resolve(import.meta.dirname, "../..");
const BUILT_PAGE = join(ROOT, "dist/dashboard/index.html");
/** What the bundle is made of: the dashboard, the typed client, and the installed packages. */
const SOURCES = [join(ROOT, "dashboard"), join(ROOT, "client"), join(ROOT, "package-lock.json")];

export async function buildDashboard(): Promise<void> {
  await build({ configFile: join(ROOT, "dashboard/vite.config.ts") });
}

export async function buildDashboardIfStale(): Promise<boolean> {
  if (existsSync(BUILT_PAGE) && newestChangeMs(SOURCES) <= statSync(BUILT_PAGE).mtimeMs) return false;
  await buildDashboard();
  return true;
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
