// `npm run bench:fleet`: the FleetDO simulation (fleet-sim.sim.ts) in workerd, apart from `npm test`
// (it measures rates and asserts none).
import { resolve } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

const root = resolve(import.meta.dirname, "../..");

export default defineConfig({
  root,
  plugins: [
    cloudflareTest({
      wrangler: { configPath: resolve(root, "wrangler.toml") },
      miniflare: { bindings: { ADMIN_TOKEN: "sim", INSTANCE_TOKEN_SECRET: "sim-instance-token-secret" } },
    }),
  ],
  test: { include: ["bench/fleet/*.sim.ts"], testTimeout: 900_000 },
});
