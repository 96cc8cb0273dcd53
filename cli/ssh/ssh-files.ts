// What `gpu ssh` and `gpu ssh-config` hand the system `ssh`: a known-hosts file the CLI keeps from the
// API's host keys (one line per instance, under its alias `gpu-<id>`, so a changed key is refused and
// no prompt asks about authenticity), and the options that reach an instance through `gpu ssh-proxy`,
// AES-GCM first among its ciphers (standards/ssh-ciphers.ts).
import { realpathSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Instance } from "../../client/index.ts";
import { SSH_CIPHERS } from "../../standards/ssh-ciphers.ts";
import { configPath } from "../config.ts";

export const hostAlias = (instanceId: string) => `gpu-${instanceId}`;

export const knownHostsPath = (env: NodeJS.ProcessEnv) => join(dirname(configPath(env)), "known_hosts");
export const sshConfigPath = (env: NodeJS.ProcessEnv) => join(dirname(configPath(env)), "ssh_config");

/** A word of a command line for the shell ssh runs ProxyCommand with. */
const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/**
 * This very CLI, as a command line that outlives the shell it was typed in: the Node running it and
 * its script's real path (an installed `gpu` is a link into the repository or the global folder).
 */
export function gpuCommand(): string[] {
  return [process.execPath, ...process.execArgv, realpathSync(process.argv[1]!)];
}

/** Writes each instance's host key under its alias, keeping the lines of instances not listed. */
export async function keepKnownHosts(env: NodeJS.ProcessEnv, instances: Instance[]): Promise<string> {
  const path = knownHostsPath(env);
  const aliases = new Map(instances.filter((i) => i.ssh).map((i) => [hostAlias(i.id), `${hostAlias(i.id)} ${i.ssh!.host_key}`]));
  const kept = (await readFile(path, "utf8").catch(() => "")).split("\n").filter((line) => line && !aliases.has(line.split(" ")[0]!));
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, [...kept, ...aliases.values()].join("\n") + "\n", { mode: 0o600 });
  return path;
}

/** `ssh -o` options that reach `instanceId` through the bridge with its pinned host key. */
export function sshOptions(env: NodeJS.ProcessEnv, instanceId: string): [string, string][] {
  return [
    ["ProxyCommand", [...gpuCommand(), "ssh-proxy", instanceId].map(shellWord).join(" ")],
    ["HostKeyAlias", hostAlias(instanceId)],
    ["UserKnownHostsFile", knownHostsPath(env)],
    ["StrictHostKeyChecking", "yes"],
    ["User", "root"],
    ["Ciphers", SSH_CIPHERS.join(",")],
  ];
}

/** One `Host gpu-<id>` block of an ssh_config file. */
export function hostBlock(env: NodeJS.ProcessEnv, instanceId: string): string {
  return [`Host ${hostAlias(instanceId)}`, ...sshOptions(env, instanceId).map(([name, value]) => `  ${name} ${value}`)].join("\n") + "\n";
}
