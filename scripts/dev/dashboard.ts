// The dashboard's static files, built by Vite into dist/dashboard (wrangler.toml's [assets]
// directory). A build empties that folder first, and stacks of tests running side by side serve
// it: so the stack builds it only when it is missing, and `npm run dev` when a source is newer.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "vite";

const ROOT = resolve(import.meta.dirname, "../..");
const BUILT_PAGE = join(ROOT, "dist/dashboard/index.html");
/** What the bundle is made of: the dashboard, the typed client, and the installed packages. */
const SOURCES = [join(ROOT, "dashboard"), join(ROOT, "client"), join(ROOT, "package-lock.json")];

/** As `npm run build`. */
const buildDashboard = () => build({ configFile: join(ROOT, "dashboard/vite.config.ts") });

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
