// The fuzz test's knobs. `npm test` runs the defaults (a fixed seed, so every run sends the same
// requests); `npm run fuzz -- --runs N --seed S [--op KEY]` sets them through FUZZ_RUNS, FUZZ_SEED
// and FUZZ_OP, which vitest.config.ts hands to the test in workerd.
export interface FuzzSettings {
  /** Requests per operation. */
  runs: number;
  seed: number;
  /** Only operations whose key ("POST /v1/keys") contains this; "" for all. */
  op: string;
}

export const DEFAULT_FUZZ_SETTINGS: FuzzSettings = { runs: 80, seed: 20261121, op: "" };

export function fuzzSettingsFrom(env: Readonly<Record<string, string | undefined>>): FuzzSettings {
  const runs = Number(env.FUZZ_RUNS || DEFAULT_FUZZ_SETTINGS.runs);
  const seed = Number(env.FUZZ_SEED || DEFAULT_FUZZ_SETTINGS.seed);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`FUZZ_RUNS must be a positive integer, not ${env.FUZZ_RUNS}`);
  if (!Number.isInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, not ${env.FUZZ_SEED}`);
  return { runs, seed, op: env.FUZZ_OP ?? "" };
}

declare module "vitest" {
  export interface ProvidedContext {
    fuzz: FuzzSettings;
  }
}
