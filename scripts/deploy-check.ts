// `npm run deploy:check`: builds what `wrangler deploy --env <env>` would upload, offline
// (`--dry-run`, no Cloudflare account), for each environment, and holds it to the bundle budget and to
// carrying no dev or bench code (dev-code.ts). scripts/deploy-check.test.ts runs the same in `npm test`,
// with the checks of the environments' config.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { devCodeIn } from "./dev-code.ts";

export const ROOT = join(import.meta.dirname, "..");
export const ENVIRONMENTS = ["staging", "production"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

const KIB = 1024;

/**
 * The uploaded modules, raw and gzipped (zlib's default level; Cloudflare's size limit counts the
 * compressed upload). Measured 2026-11-23: 1,125,149 B raw / 204,062 B gzip (1098.8 / 199.3 KiB)
 * with every zod locale, 755,142 B / 161,911 B (737.4 / 158.1 KiB) with English alone (wrangler.toml's
 * `alias`); later that day 826.6 / 182.7 KiB, after the rest of the second wave and a description on
 * every field of the API (GET /v1/openapi.json serves them: 12.4 / 3.3 KiB of it). 2026-11-25, with the
 * Stripe client (~780 KiB as written) and the deployments minified: 706.0 / 174.4 KiB. 2026-11-29, with
 * volumes (their API and files routes, tar, aws4fetch, storage billing): 225.3 KiB gzip. The budget
 * leaves about 20% for what comes next; Cloudflare's own limit is many times larger, so it guards
 * start-up time and notices a dependency pulled in by mistake.
 */
export const BUNDLE_BUDGET = { rawBytes: 1000 * KIB, gzipBytes: 270 * KIB };

export interface DryRun {
  environment: Environment;
  /** What wrangler printed: the upload size and the bindings. */
  output: string;
  rawBytes: number;
  gzipBytes: number;
  /** The source files the bundle was built from (its source map's `sources`). */
  sources: string[];
  /** The uploaded modules' text, one after the other. */
  text: string;
}

/**
 * `wrangler deploy --dry-run --env <environment>` into a temporary folder. Its environment holds no
 * Cloudflare credentials and a HOME of its own (no stored login), so it proves none is needed.
 */
export async function dryRun(environment: Environment): Promise<DryRun> {
  const scratch = mkdtempSync(join(tmpdir(), `deploy-check-${environment}-`));
  const outdir = join(scratch, "out");
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "deploy", "--dry-run", "--env", environment, "--outdir", outdir, "--config", join(ROOT, "wrangler.toml")],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          HOME: scratch,
          XDG_CONFIG_HOME: join(scratch, ".config"),
          WRANGLER_SEND_METRICS: "false",
          CLOUDFLARE_CF_FETCH_ENABLED: "false",
          WRANGLER_HIDE_BANNER: "true",
          NO_COLOR: "1",
        },
      },
    );
    const modules = readdirSync(outdir).filter((name) => !name.endsWith(".map") && name !== "README.md");
    const contents = modules.map((name) => readFileSync(join(outdir, name)));
    const map = JSON.parse(readFileSync(join(outdir, "main.js.map"), "utf8")) as { sources: string[] };
    return {
      environment,
      output: stdout + stderr,
      rawBytes: contents.reduce((sum, bytes) => sum + bytes.length, 0),
      gzipBytes: contents.reduce((sum, bytes) => sum + gzipSync(bytes).length, 0),
      sources: map.sources,
      text: contents.map((bytes) => bytes.toString("utf8")).join("\n"),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Where a bundle breaks the budget, one line each; empty when it fits. */
export function overBudget(run: DryRun): string[] {
  const kib = (bytes: number) => `${(bytes / KIB).toFixed(1)} KiB`;
  const over: string[] = [];
  if (run.rawBytes > BUNDLE_BUDGET.rawBytes) over.push(`${run.environment}: ${kib(run.rawBytes)} raw, over the budget of ${kib(BUNDLE_BUDGET.rawBytes)}`);
  if (run.gzipBytes > BUNDLE_BUDGET.gzipBytes) over.push(`${run.environment}: ${kib(run.gzipBytes)} gzip, over the budget of ${kib(BUNDLE_BUDGET.gzipBytes)}`);
  return over;
}

if (import.meta.main) {
  let failed = false;
  for (const environment of ENVIRONMENTS) {
    const run = await dryRun(environment);
    const over = overBudget(run);
    const devCode = devCodeIn(run).map((line) => `${environment}: dev code in the production bundle: ${line}`);
    console.log(`${environment}: ${(run.rawBytes / KIB).toFixed(1)} KiB raw / ${(run.gzipBytes / KIB).toFixed(1)} KiB gzip (budget ${BUNDLE_BUDGET.rawBytes / KIB} / ${BUNDLE_BUDGET.gzipBytes / KIB} KiB)`);
    for (const line of [...over, ...devCode]) console.error(line);
    failed ||= over.length + devCode.length > 0;
  }
  process.exitCode = failed ? 1 : 0;
}
