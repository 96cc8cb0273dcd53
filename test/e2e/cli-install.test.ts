// The `gpu` CLI installed as CLIs are, `npm install -g` of the repository (a link to it, as `npm link`
// makes), into a prefix of the test's own, and run from a folder outside the repository with the
// machine's PATH: it runs on the project's Node 22 whatever `node` comes first, and the ProxyCommand
// `ssh-config --write` writes names that Node and the repository's script by absolute path, so ssh
// reaches the instance through it from anywhere.
import { execFileSync } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { delimiter, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useTempDir } from "../support/agent/temp-dir.ts";
import { useE2eStack, type Instance } from "./support/e2e-stack.ts";
import { cliEnv, ROOT, runCommand } from "./support/gpu-cli.ts";
import { missingOpenSsh } from "./support/openssh.ts";

const stack = useE2eStack();
const scratch = useTempDir("gpu-cli-install-");
let gpu: (...args: string[]) => ReturnType<typeof runCommand>;
let env: NodeJS.ProcessEnv;
let instance: Instance;

beforeAll(async () => {
  const prefix = join(scratch.path, "prefix");
  // --ignore-scripts: the repository's `prepare` already ran at its own `npm install`.
  execFileSync("npm", ["install", "--global", "--prefix", prefix, "--ignore-scripts", "--offline", "--no-audit", "--no-fund", ROOT], { stdio: "ignore" });
  // The machine's PATH without the repository's node_modules (npm and vitest put its .bin first).
  const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => !dir.startsWith(join(ROOT, "node_modules"))).join(delimiter);
  env = { ...cliEnv(scratch.path, { GPU_API_URL: stack.baseUrl, GPU_API_KEY: stack.key }), PATH: `${join(prefix, "bin")}${delimiter}${path}` };
  gpu = (...args) => runCommand("gpu", args, env, scratch.path);
  instance = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch" });
}, 120_000);

describe("gpu installed with npm install -g, run outside the repository", () => {
  it("runs by name from another folder on the project's Node 22", async () => {
    const help = await gpu("--help");
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toContain("Usage: gpu [options] [command]");
    expect((await gpu("ls")).stdout).toContain(instance.id);
  });

  it("ssh-config --write names the project's Node and the repository's script by absolute path", async () => {
    expect((await gpu("ssh-config", "--write")).code).toBe(0);
    const written = readFileSync(join(scratch.path, "gpu-rental", "ssh_config"), "utf8");
    const node = realpathSync(join(ROOT, "node_modules/node/bin/node"));
    expect(written).toContain(`  ProxyCommand ${node} ${join(ROOT, "cli/gpu.ts")} ssh-proxy ${instance.id}\n`);
  });

  it.skipIf(missingOpenSsh !== null)("ssh reaches the instance through that ProxyCommand from another folder", async () => {
    const key = join(scratch.path, "id_ed25519");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "install@test", "-f", key]);
    expect((await gpu("ssh-keys", "add", `${key}.pub`)).code).toBe(0);
    expect((await gpu("ssh-config", "--write")).code).toBe(0);
    const ssh = await runCommand("ssh", ["-F", join(scratch.path, ".ssh", "config"), "-i", key, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
      `gpu-${instance.id}`, "echo reached"], env, scratch.path);
    expect(ssh, ssh.stderr).toMatchObject({ code: 0, stdout: "reached\n" });
  });
});
