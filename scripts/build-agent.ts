// `npm run build:agent`: the host agent as one bundled ESM file plus the pinned Node runtime (the
// node@22 devDependency) in dist/host-agent/, with the install files beside them. A GPU host gets
// this folder and installs nothing else.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { build, type Plugin } from "esbuild";

const ROOT = resolve(import.meta.dirname, "..");
export const DIST = join(ROOT, "dist/host-agent");
const NODE_RUNTIME = join(ROOT, "node_modules/node/bin/node");
const INSTALL_FILES = ["install.sh", "firewall.sh", "gpu-rental-agent", "gpu-rental-agent.service", "Dockerfile", "Dockerfile.dockerignore"];

/**
 * Optional native add-ons the bundle leaves out: ssh2 (dockerode's ssh:// transport) loads cpu-features
 * and its own crypto binding, and ws loads bufferutil and utf-8-validate, each inside a try/catch with
 * a pure-JavaScript fallback. Resolving them to a module that throws makes that fallback certain.
 */
const leaveOutNativeAddons: Plugin = {
  name: "leave-out-native-addons",
  setup(builder) {
    builder.onResolve({ filter: /^(cpu-features|bufferutil|utf-8-validate)$|\.node$/ }, (args) => ({ path: args.path, namespace: "left-out" }));
    builder.onLoad({ filter: /.*/, namespace: "left-out" }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is left out of the agent bundle`)});`,
      loader: "js",
    }));
  },
};

export async function buildAgent(outDir = DIST): Promise<{ bundleBytes: number; nodeVersion: string }> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [join(ROOT, "host-agent/main.ts")],
    outfile: join(outDir, "agent.mjs"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    plugins: [leaveOutNativeAddons],
    logLevel: "warning",
    // The bundled CommonJS dependencies (dockerode, ws) call require() and read __dirname.
    banner: {
      js: [
        'import { createRequire as __agentCreateRequire } from "node:module";',
        'import { fileURLToPath as __agentFileUrlToPath } from "node:url";',
        "const require = __agentCreateRequire(import.meta.url);",
        "const __filename = __agentFileUrlToPath(import.meta.url);",
        "const __dirname = __agentFileUrlToPath(new URL('.', import.meta.url));",
      ].join("\n"),
    },
  });
  copyFileSync(NODE_RUNTIME, join(outDir, "node"));
  chmodSync(join(outDir, "node"), 0o755);
  for (const file of INSTALL_FILES) {
    copyFileSync(join(ROOT, "deploy/host-agent", file), join(outDir, file));
    chmodSync(join(outDir, file), file.endsWith(".sh") || file === "gpu-rental-agent" ? 0o755 : 0o644);
  }
  const nodeVersion = execFileSync(join(outDir, "node"), ["--version"], { encoding: "utf8" }).trim();
  return { bundleBytes: statSync(join(outDir, "agent.mjs")).size, nodeVersion };
}

if (import.meta.main) {
  const { bundleBytes, nodeVersion } = await buildAgent();
  process.stdout.write(
    `dist/host-agent: agent.mjs (${(bundleBytes / 1e6).toFixed(1)} MB), node ${nodeVersion} for ${process.platform}-${process.arch}, install files\n` +
      "Copy the folder to a GPU host of the same OS and CPU, then: sudo ./install.sh --server URL --token TOKEN\n",
  );
}
