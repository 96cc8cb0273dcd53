// Two test projects: code that runs in workerd (the Worker and its Durable Objects), and code that
// runs on Node (protocol, host agent, end-to-end tests against `wrangler dev`, bench reporting).
import { availableParallelism } from "node:os";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { configDefaults, defineConfig } from "vitest/config";
import { fuzzSettingsFrom } from "./test/fuzz/fuzz-settings.ts";
import { WaitingFilesFirst } from "./test/support/waiting-files-first.ts";

// wrangler.toml's `secrets.required`: the plugin's wrangler takes them from this process's environment
// (else it warns, for every workerd file, that they are missing); the bindings below give the tests
// the same values.
const WORKERD_SECRETS = {
  ADMIN_TOKEN: "test-admin-token-at-least-32-bytes-long", INSTANCE_TOKEN_SECRET: "test-instance-token-secret-32-bytes-long",
  R2_ACCESS_KEY_ID: "test-r2-access-key", R2_SECRET_ACCESS_KEY: "test-r2-secret-access-key",
};
for (const [name, value] of Object.entries(WORKERD_SECRETS)) process.env[name] ??= value;

export default defineConfig({
  test: {
    // Logs of passing tests are noise; a failing test shows its own.
    silent: "passed-only",
    // The run's temporary folders in one of its own; one a test left behind fails the run.
    globalSetup: ["./test/support/temp-dir-guard.ts"],
    // Much of a file's time is spent waiting (a stack starting, an agent reconnecting, a container
    // engine, a browser), not computing: one file more than the cores keeps them busy without
    // starving the stacks' agents. Vitest's own default, one file fewer than the cores, runs the
    // suite one file at a time on 2 cores.
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: WaitingFilesFirst },
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: { ...WORKERD_SECRETS, RATE_LIMIT_RPS: "1000000", APPS_RATE_LIMIT_RPS: "1000000", ADMIN_RATE_LIMIT_RPS: "1000000", AUTH_RATE_LIMIT_PER_MIN: "1000000", HEARTBEAT_TIMEOUT_MS: "3000",
                // Stripe's webhooks verified; payments themselves off (no STRIPE_SECRET_KEY): the checkout round trip is end to end.
                STRIPE_WEBHOOK_SECRET: "whsec_test_workerd",
                // So MachineDOs sign their agents' volume URLs: an address nothing in workerd fetches (the agent's tests fetch from a real S3 endpoint).
                R2_S3_ENDPOINT: "http://127.0.0.1:9/cdn-cgi/local/r2/s3" },
              // A per-location limiter small enough to reach, for workers/http/rate-limit.test.ts.
              ratelimits: { TIGHT_RATE_LIMITER: { namespace_id: "9000", simple: { limit: 3, period: 10 } } },
            },
          }),
        ],
        // test/fuzz drives the whole Worker, so it runs in workerd; its settings come from the environment (npm run fuzz).
        test: {
          name: "workers",
          include: ["workers/**/*.test.ts", "durable-objects/**/*.test.ts", "core/**/*.test.ts", "test/fuzz/**/*.test.ts"],
          // A file's first request starts its Worker (about 2 s here, over 5 s, vitest's default limit,
          // on a loaded machine): a limit for hangs, not a timing check.
          testTimeout: 20_000,
          provide: { fuzz: fuzzSettingsFrom(process.env) },
          // A Node receiver on the loopback host for webhook deliveries (a Worker cannot listen).
          globalSetup: ["test/support/webhook-receiver.ts"],
        },
      },
      {
        test: {
          name: "node",
          include: [
            "protocol/**/*.test.ts", "standards/**/*.test.ts", "host-agent/**/*.test.ts", "client/**/*.test.ts", "cli/**/*.test.ts", "dashboard/**/*.test.ts",
            "test/**/*.test.ts", "bench/**/*.test.ts", "scripts/**/*.test.ts",
          ],
          exclude: [...configDefaults.exclude, "test/fuzz/**"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
