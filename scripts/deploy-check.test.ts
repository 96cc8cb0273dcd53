// The deployable environments: each builds offline within the bundle budget, and repeats what
// wrangler does not inherit from the top level (the `wrangler dev` and test configuration).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { DEFAULT_IMAGE_REGISTRIES } from "../workers/api/image-registry.ts";
import { LOCATION_PERIOD_S } from "../workers/http/rate-limit.ts";
import { BUNDLE_BUDGET, dryRun, ENVIRONMENTS, overBudget, ROOT, type DryRun } from "./deploy-check.ts";
import { devCodeIn } from "./dev-code.ts";

/** What these checks read of a resolved configuration (wrangler's types for it are not shipped, so it is typed here). */
interface ResolvedConfig {
  name: string;
  vars: Record<string, unknown>;
  secrets?: { required?: string[] };
  durable_objects: { bindings: { name: string; class_name: string }[] };
  ratelimits: { name: string; namespace_id: string; simple: { limit: number; period: number } }[];
  migrations: unknown[];
  routes?: (string | { pattern: string; custom_domain?: boolean; zone_name?: string; zone_id?: string })[];
  workers_dev?: boolean;
  preview_urls?: boolean;
  observability?: { enabled?: boolean; head_sampling_rate?: number };
}

/** wrangler's own reader: inheritance exactly as `wrangler deploy --env` applies it. */
const configOf = (environment?: string): ResolvedConfig =>
  unstable_readConfig({ config: join(ROOT, "wrangler.toml"), env: environment }, { hideWarnings: true });
const topLevel = configOf();

describe.each(ENVIRONMENTS)("wrangler deploy --dry-run --env %s", (environment) => {
  let run: DryRun;
  beforeAll(async () => {
    run = await dryRun(environment);
  });

  it("builds without a Cloudflare account and binds every Durable Object and the per-location limiter", () => {
    const { output } = run;
    expect(output).toContain("--dry-run: exiting now.");
    for (const binding of [
      "env.ACCOUNTS (AccountDO)", "env.FLEET (FleetDO)", "env.MACHINES (MachineDO)", "env.EMAILS (EmailDO)", "env.PAYMENTS (PaymentDO)", "env.RATE_LIMITER (300 requests/10s)",
      "env.APPS_RATE_LIMITER (3000 requests/10s)",
    ]) {
      expect(output).toContain(binding);
    }
  });

  it("stays within the bundle budget", () => {
    expect(overBudget(run)).toEqual([]);
    expect(run.rawBytes).toBeGreaterThan(0);
  });

  it("is built from the production entry and carries no dev or bench code (no bench route, no dev MachineDO)", () => {
    expect(run.sources.some((source) => source.endsWith("workers/main.ts"))).toBe(true);
    expect(devCodeIn(run)).toEqual([]);
  });

  it("carries zod's English locale and no other", () => {
    const locales = run.sources.filter((source) => source.includes("/zod/v4/locales/"));
    expect(locales.map((source) => source.replace(/.*\/zod\//, "zod/"))).toEqual(["zod/v4/locales/en.js"]);
  });
});

describe("overBudget", () => {
  it("names the environment, the size and the budget that was broken", () => {
    const run = { environment: "staging" as const, output: "", sources: [], text: "", rawBytes: BUNDLE_BUDGET.rawBytes + 1, gzipBytes: BUNDLE_BUDGET.gzipBytes };
    expect(overBudget(run)).toEqual([`staging: 1000.0 KiB raw, over the budget of 1000.0 KiB`]);
    expect(overBudget({ ...run, rawBytes: 1, gzipBytes: BUNDLE_BUDGET.gzipBytes + 2048 })).toEqual([`staging: 272.0 KiB gzip, over the budget of 270.0 KiB`]);
  });
});

describe.each(ENVIRONMENTS)("the %s environment's configuration", (environment) => {
  const config = configOf(environment);

  it("repeats every var, secret and Durable Object binding of the top level (wrangler inherits none of them)", () => {
    expect(Object.keys(config.vars).sort(), "vars").toEqual(Object.keys(topLevel.vars).sort());
    expect(config.secrets?.required?.toSorted(), "[secrets] required").toEqual(topLevel.secrets?.required?.toSorted());
    expect(config.durable_objects.bindings, "durable_objects.bindings").toEqual(topLevel.durable_objects.bindings);
  });

  it("inherits the top level's migrations and name, as its own Worker", () => {
    expect(config.migrations).toEqual(topLevel.migrations);
    expect(config.name).toBe(`${topLevel.name}-${environment}`);
  });

  it("never turns on the benchmark routes (an open relay)", () => {
    expect(config.vars.BENCH_ROUTES).toBe("0");
  });

  it("never admits host-local images (the deployed Worker would refuse to serve)", () => {
    expect(config.vars.DEV_LOCAL_IMAGES).toBe("0");
  });

  it("keeps custom images to the well-known public registries, as it ships", () => {
    expect(String(config.vars.IMAGE_REGISTRIES).split(",")).toEqual(DEFAULT_IMAGE_REGISTRIES);
  });

  it("serves the API on a custom domain and the apps wildcard of its APPS_DOMAIN, nothing on workers.dev", () => {
    const appsDomain = String(config.vars.APPS_DOMAIN);
    const [api, apps, ...others] = config.routes ?? [];
    expect(others).toEqual([]);
    expect(api).toEqual({ pattern: expect.stringMatching(/^[a-z0-9.-]+$/), custom_domain: true });
    expect(apps).toEqual({ pattern: `*.${appsDomain}/*`, zone_name: expect.any(String) });
    const zone = typeof apps === "object" ? apps.zone_name : undefined;
    expect(appsDomain === zone || appsDomain.endsWith(`.${zone}`), "APPS_DOMAIN lies in the route's zone").toBe(true);
    expect(config.workers_dev).toBe(false);
    expect(config.preview_urls).toBe(false);
  });

  it("has observability on for every request", () => {
    expect(config.observability).toMatchObject({ enabled: true, head_sampling_rate: 1 });
  });

  it("limits per location no tighter than the isolate bucket admits in one window, for the API and for the apps' origins", () => {
    expect(config.ratelimits.map((binding) => binding.name)).toEqual(["RATE_LIMITER", "APPS_RATE_LIMITER"]);
    for (const [binding, rateVar] of [["RATE_LIMITER", "RATE_LIMIT_RPS"], ["APPS_RATE_LIMITER", "APPS_RATE_LIMIT_RPS"]] as const) {
      const rps = Number(config.vars[rateVar]);
      const limiter = config.ratelimits.find((candidate) => candidate.name === binding)!;
      expect(rps, rateVar).toBeGreaterThan(0);
      expect(limiter.simple.period).toBe(LOCATION_PERIOD_S);
      // A client at the rate with a full bucket of two seconds' worth is never refused.
      expect(limiter.simple.limit, binding).toBeGreaterThanOrEqual(rps * LOCATION_PERIOD_S + 2 * rps);
    }
  });
});

describe("across environments", () => {
  it("each environment's each limiter counts in a rate-limit namespace of its own (namespaces are shared account-wide)", () => {
    const namespaces = ENVIRONMENTS.flatMap((environment) => configOf(environment).ratelimits.map((binding) => binding.namespace_id));
    expect(namespaces.length).toBe(2 * ENVIRONMENTS.length);
    expect(new Set(namespaces).size).toBe(namespaces.length);
  });

  it("the top level (npm run dev, tests) has no per-location limiter: one isolate's bucket sees every request", () => {
    expect(topLevel.ratelimits).toEqual([]);
  });

  it("the generated Env has every binding required but the limiters, which only the deployments have", () => {
    const generated = readFileSync(join(ROOT, "worker-configuration.d.ts"), "utf8");
    const base = /interface __BaseEnv_Env \{\n([^}]*)\}/.exec(generated)?.[1] ?? "";
    expect(base.split("\n").filter((line) => line.includes("?:"))).toEqual(["\tRATE_LIMITER?: RateLimit;", "\tAPPS_RATE_LIMITER?: RateLimit;"]);
  });
});
