// `npm run build:agent`: the host agent as one bundled ESM file plus the pinned Node runtime (the
// node@22 devDependency) in dist/host-agent/, with the install files beside them. A GPU host gets
// this folder and installs nothing else. The bundle is the production entry's (host-agent/main.ts):
// the build fails when it carries any dev code (dev-code.ts), the dev agent's stand-ins included.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { build, type Plugin } from "esbuild";
import { devCodeIn } from "./dev-code.ts";

const ROOT = resolve(import.meta.dirname, "..");
export const DIST = join(ROOT, "dist/host-agent");
const NODE_RUNTIME = join(ROOT, "node_modules/node/bin/node");
const INSTALL_FILES = ["install.sh", "firewall.sh", "pull-proxy.sh", "gpu-rental-agent", "gpu-rental-agent.service", "Dockerfile", "Dockerfile.dockerignore"];

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

export interface BuiltAgent {
  bundleBytes: number;
  nodeVersion: string;
  /** The source files bundled (esbuild's metafile inputs), repo-relative. */
  sources: string[];
}

export async function buildAgent(outDir = DIST): Promise<BuiltAgent> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const { metafile } = await build({
    entryPoints: [join(ROOT, "host-agent/main.ts")],
    outfile: join(outDir, "agent.mjs"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    plugins: [leaveOutNativeAddons],
    logLevel: "warning",
    absWorkingDir: ROOT,
    metafile: true,
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
  const sources = Object.keys(metafile.inputs);
  const devCode = devCodeIn({ text: readFileSync(join(outDir, "agent.mjs"), "utf8"), sources });
  if (devCode.length > 0) throw new Error(`the agent bundle carries dev code:\n  ${devCode.join("\n  ")}`);
  copyFileSync(NODE_RUNTIME, join(outDir, "node"));
  chmodSync(join(outDir, "node"), 0o755);
  for (const file of INSTALL_FILES) {
    copyFileSync(join(ROOT, "deploy/host-agent", file), join(outDir, file));
    chmodSync(join(outDir, file), file.endsWith(".sh") || file === "gpu-rental-agent" ? 0o755 : 0o644);
  }
  const nodeVersion = execFileSync(join(outDir, "node"), ["--version"], { encoding: "utf8" }).trim();
  return { bundleBytes: statSync(join(outDir, "agent.mjs")).size, nodeVersion, sources };
}

if (import.meta.main) {
  const { bundleBytes, nodeVersion } = await buildAgent();
  process.stdout.write(
    `dist/host-agent: agent.mjs (${(bundleBytes / 1e6).toFixed(1)} MB), node ${nodeVersion} for ${process.platform}-${process.arch}, install files\n` +
      "Copy the folder to a GPU host of the same OS and CPU, then: sudo ./install.sh --server URL --token TOKEN\n",
  );
}
