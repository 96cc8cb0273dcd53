// Two test projects: code that runs in workerd (the Worker and its Durable Objects), and code that
// runs on Node (protocol, host agent, end-to-end tests against `wrangler dev`, bench reporting).
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Logs of passing tests are noise; a failing test shows its own.
    silent: "passed-only",
    projects: [
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: { bindings: { ADMIN_TOKEN: "test-admin-token", RATE_LIMIT_RPS: "1000000", AUTH_RATE_LIMIT_PER_MIN: "1000000", HEARTBEAT_TIMEOUT_MS: "1500" } },
          }),
        ],
        test: { name: "workers", include: ["workers/**/*.test.ts", "durable-objects/**/*.test.ts"] },
      },
      {
        test: {
          name: "node",
          include: [
            "protocol/**/*.test.ts", "host-agent/**/*.test.ts", "client/**/*.test.ts", "cli/**/*.test.ts", "dashboard/**/*.test.ts",
            "test/**/*.test.ts", "bench/**/*.test.ts", "scripts/**/*.test.ts",
          ],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
