// `gpu ssh <id> [-- command…]` runs the system `ssh` into an instance through `gpu ssh-proxy`, its
// host key pinned from the API, and when ssh's keys are refused names the account's; `gpu ssh-config [--write]` gives every running instance a `Host
// gpu-<id>` block, so ssh, scp, rsync -e ssh and VS Code Remote-SSH reach it by name.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { Command } from "@commander-js/extra-typings";
import { ok, type Instance } from "../../client/index.ts";
import { CliError, ExitStatus } from "../errors.ts";
import type { Factory } from "../factory.ts";
import { printJson } from "../format.ts";
import { JSON_HELP } from "../options.ts";
import { PUBLICKEY_REFUSED, publicKeyHint } from "../ssh/publickey-hint.ts";
import { hostAlias, hostBlock, keepKnownHosts, sshConfigPath, sshOptions } from "../ssh/ssh-files.ts";

/** ssh's exit status for its own failures (a command's is passed through). */
const SSH_FAILED = 255;
const TAIL_CHARS = 4096;

export function sshCommand(f: Factory) {
  return new Command("ssh")
    .description("Open a shell on an instance, or run a command there, with your own ssh (add your key first: gpu ssh-keys add)")
    .argument("<id>", "instance id (i-...)")
    .argument("[command...]", "a command to run instead of a shell (after --)")
    .option("-i, --identity <file>", "the private key to offer (ssh's -i), alone; without it, ssh's own (~/.ssh/id_ed25519 ..., an agent's)")
    .option("--ssh <path>", "the ssh program", "ssh")
    .addHelpText(
      "after",
      "\nWhen every key ssh offered is refused, the account's keys are listed with their fingerprints.\n\nExamples:\n  gpu ssh i-abcdefghijklmnop\n  gpu ssh -i ~/.ssh/work_ed25519 i-abcdefghijklmnop\n  gpu ssh i-abcdefghijklmnop -- nvidia-smi",
    )
    .action(async (id, command, options) => {
      const api = await f.client();
      const instance = await ok(api.GET("/v1/instances/{id}", { params: { path: { id } } }));
      if (instance.status !== "running") throw new CliError(`${id} is ${instance.status}: start it first (gpu start ${id})`);
      if (!instance.ssh) throw new CliError(`${id}'s host has no SSH server yet (its agent is older); try again after it is upgraded`);
      await keepKnownHosts(f.env, [instance]);
      const identity = options.identity ? ["-i", options.identity, "-o", "IdentitiesOnly=yes"] : [];
      const settings = sshOptions(f.env, id).flatMap(([name, value]) => ["-o", `${name}=${value}`]);
      const args = [...identity, ...settings, hostAlias(id), ...(command.length ? ["--", ...command] : [])];
      // ssh's stderr passes through here, its end kept, to tell a refusal of its keys from other failures.
      const child = spawn(options.ssh, args, { stdio: ["inherit", "inherit", "pipe"], env: f.env });
      let tail = "";
      child.stderr.on("data", (chunk: Buffer) => {
        f.io.stderr.write(chunk);
        tail = (tail + chunk.toString()).slice(-TAIL_CHARS);
      });
      const [code, signal] = (await once(child, "close")) as [number | null, NodeJS.Signals | null];
      const status = code ?? (signal ? 255 : 1);
      if (status === SSH_FAILED && PUBLICKEY_REFUSED.test(tail)) {
        f.io.err(publicKeyHint(id, (await ok(api.GET("/v1/ssh-keys"))).items));
      }
      if (status !== 0) throw new ExitStatus(status);
    });
}

export function sshConfigCommand(f: Factory) {
  return new Command("ssh-config")
    .description("Print a Host block for each running instance (`ssh gpu-<id>`); --write keeps them in a file your ~/.ssh/config includes")
    .option("--write", "write the blocks to the CLI's ssh_config and add an Include of it to ~/.ssh/config")
    .option("--json", `${JSON_HELP} (the reachable instances; with --write, after writing)`)
    .action(async (options) => {
      const { items } = await ok((await f.client()).GET("/v1/instances"));
      const reachable = items.filter((instance: Instance) => instance.status === "running" && instance.ssh);
      await keepKnownHosts(f.env, reachable);
      const json = () => printJson(f.io, { items: reachable });
      const text = reachable.map((instance) => hostBlock(f.env, instance.id)).join("\n");
      if (!options.write) return options.json ? json() : void f.io.stdout.write(text);
      const path = sshConfigPath(f.env);
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      await writeFile(path, `# Written by \`gpu ssh-config --write\`; run it again after launching.\n${text}`, { mode: 0o600 });
      const included = await includeFrom(f.env, path);
      f.io.err(`Wrote ${reachable.length} host(s) to ${path}${included ? `; ${included} includes it` : ""}`);
      if (options.json) json();
    });
}

/** Adds `Include <path>` at the top of ~/.ssh/config (where it applies to every host) unless it is there; the file changed, or null. */
async function includeFrom(env: NodeJS.ProcessEnv, path: string): Promise<string | null> {
  const userConfig = join(env.HOME || homedir(), ".ssh", "config");
  const current = await readFile(userConfig, "utf8").catch(() => "");
  const line = `Include ${path}`;
  if (current.split("\n").some((existing) => existing.trim() === line)) return userConfig;
  await mkdir(dirname(userConfig), { recursive: true, mode: 0o700 });
  await writeFile(userConfig, `${line}\n${current}`, { mode: 0o600 });
  return userConfig;
}
