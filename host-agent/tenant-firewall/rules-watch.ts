// The agent's own check of the tenant firewall: at start and every minute, the table must be as
// firewall.sh writes it (rules-check.ts). While it is not, the host is degraded: it takes no new
// instances, and its MachineDO (and the operator, in GET /admin/v1/machines) learns why.
import type { HostHealth } from "../host-health.ts";
import type { RunCommand } from "../host-command.ts";
import type { Logger } from "../log.ts";
import { NFT_LIST_ARGS, readTable } from "./nft-table.ts";
import { firewallProblem } from "./rules-check.ts";

export const FIREWALL_CHECK_MS = 60_000;

export interface FirewallWatchOptions {
  run: RunCommand;
  /** The agent's network pool, which the table must name. */
  pool: string;
  health: HostHealth;
  log: Logger;
  intervalMs?: number;
}

export interface FirewallWatch {
  /** Runs one check now (the agent awaits the first before it connects). */
  check(): Promise<void>;
  close(): void;
}

export function watchFirewall({ run, pool, health, log, intervalMs = FIREWALL_CHECK_MS }: FirewallWatchOptions): FirewallWatch {
  let last: string | null | undefined;
  const check = async () => {
    const problem = firewallProblem(readTable(await run("nft", NFT_LIST_ARGS)), pool);
    const reason = problem && `tenant firewall: ${problem.reason} (fix: ${problem.fix})`;
    health.set("firewall", reason);
    if (reason === last) return;
    if (reason) log.error("tenant firewall missing: new instances refused", { reason });
    else if (last !== undefined) log.info("tenant firewall in place again: new instances accepted");
    last = reason;
  };
  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  return { check, close: () => clearInterval(timer) };
}
