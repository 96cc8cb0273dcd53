// Dev and bench code, which no production build may carry: the folders it lives in (the layering
// rule, layers.ts, keeps production code from importing them) and strings only it has, looked for in
// what `npm run deploy:check` and `npm run build:agent` build (their tests hold both to it).

/** The dev Worker's entry and the bench's routes; the dev agent's entry and stand-ins. */
export const DEV_FOLDERS = ["workers/dev/", "host-agent/dev/"] as const;

/** Strings that only dev and bench code has: in a bundle's text, they mean some of it was imported. */
export const DEV_MARKERS = [
  "BENCH_ROUTES", // the switch of the bench's routes, the open relay among them (workers/dev/bench-routes.ts)
  "/bench/noop", // the bench's trivial route (the same file)
  "/dev/open-streams", // the dev MachineDO's stream count (workers/dev/dev-machine-do.ts)
  "DEV_LISTEN", // the local runtime's port map for the dev container (host-agent/dev/local-runtime.ts)
  "GPU-local-", // synthetic GPUs (host-agent/dev/synthetic-gpus.ts)
  "dev container:", // the dev container's start line (host-agent/dev/container/server.ts)
  "/fast/bytes", // the bench's fast routes (host-agent/dev/container/fast-routes.ts)
  "DEV_JUPYTER", // the local runtime's real Jupyter (host-agent/dev/dev-config.ts, jupyter-container.ts)
] as const;

/** A built bundle: its text, and the source files it was built from (from its source map or metafile). */
export interface Bundle {
  text: string;
  sources: readonly string[];
}

/** The dev code a bundle carries, one line each (the source file, or the marker found); empty when none. */
export function devCodeIn(bundle: Bundle): string[] {
  const sources = bundle.sources.filter((source) => DEV_FOLDERS.some((folder) => source.replaceAll("\\", "/").includes(folder)));
  const markers = DEV_MARKERS.filter((marker) => bundle.text.includes(marker));
  return [...sources.map((source) => `built from ${source}`), ...markers.map((marker) => `contains ${JSON.stringify(marker)}`)];
}
