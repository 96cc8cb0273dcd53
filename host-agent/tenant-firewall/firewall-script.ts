// deploy/host-agent/firewall.sh, the one source of the tenant firewall's rules: install.sh and the
// systemd unit run it, and the agent runs the same file to put back a table that went missing or was
// altered (rules-watch.ts), so there is no second copy of the rules to drift from the first.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { CommandResult, RunCommand } from "../host-command.ts";

/**
 * Beside the bundle (agent.mjs, where install.sh and the image put it), or in the repository for an
 * agent run from its sources; the bundle's place when neither holds it, for the error to name.
 */
export function firewallScript(): string {
  const [besideBundle, inRepository] = ["./firewall.sh", "../../deploy/host-agent/firewall.sh"].map((path) => fileURLToPath(new URL(path, import.meta.url)));
  return [besideBundle!, inRepository!].find((path) => existsSync(path)) ?? besideBundle!;
}

/** Writes the table for `pool`, whole, in one nft transaction. */
export function applyFirewall(run: RunCommand, script: string, pool: string): Promise<CommandResult> {
  return run("bash", [script, pool]);
}
