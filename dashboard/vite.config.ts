// Builds the dashboard into dist/dashboard, which the Worker serves as static assets (wrangler.toml
// [assets]). Everything is bundled: the page loads nothing from any other origin.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const HERE = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root: HERE,
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic" } },
  build: {
    outDir: join(HERE, "..", "dist", "dashboard"),
    emptyOutDir: true,
    rolldownOptions: {
      onwarn(warning, warn) {
        // React Query marks its modules "use client" for server-rendering frameworks; a plain SPA has no server side.
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
    },
  },
});
