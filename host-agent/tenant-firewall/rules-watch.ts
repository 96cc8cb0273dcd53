// The agent's own keeping of the tenant firewall: the table must be as firewall.sh writes it
// (rules-check.ts), checked at start, on every change nft reports (ruleset-monitor.ts) and every few
// seconds. When it is not (an nftables restart flushes the whole ruleset; a hand edit alters a rule),
// the host is degraded: it takes no new instances, its MachineDO (and the operator, in GET
// /admin/v1/machines) learns why; every instance's bridge goes down, so running instances have no
// network at all (a rule of last resort would not hold: a flushed ruleset takes every table with it);
// and the agent runs firewall.sh again. Once the table is back, the bridges come up and the host is
// healthy. If putting it back fails, the instances stay off the network and the reason says why.
import type { HostHealth } from "../host-health.ts";
import { failureText, type CommandResult, type RunCommand } from "../host-command.ts";
import { errorMessage, type Logger } from "../log.ts";
import { NFT_LIST_ARGS, readTable } from "./nft-table.ts";
import { firewallProblem } from "./rules-check.ts";

export const FIREWALL_CHECK_MS = 5_000;

export interface FirewallWatchOptions {
  run: RunCommand;
  /** The agent's network pool, which the table must name. */
  pool: string;
  health: HostHealth;
  log: Logger;
  /** Writes the table again: firewall.sh (firewall-script.ts). */
  restore(): Promise<CommandResult>;
  /** Takes every instance's network off the host (false) or puts it back (true); resolves to the bridges set. */
  setNetworksUp(up: boolean): Promise<string[]>;
  /** Calls back on each change to the host's ruleset (followRulesetChanges); none: the timer alone. */
  followChanges?(onChange: () => void): { close(): void };
  intervalMs?: number;
}

export interface FirewallWatch {
  /** Runs one check now, after any under way (the agent awaits the first before it connects). */
  check(): Promise<void>;
  close(): void;
}

export function watchFirewall({ run, pool, health, log, restore, setNetworksUp, followChanges, intervalMs = FIREWALL_CHECK_MS }: FirewallWatchOptions): FirewallWatch {
  const problemNow = async () => firewallProblem(readTable(await run("nft", NFT_LIST_ARGS)), pool);
  // Unknown at start: an agent that died with instances cut off brings them back once the table is there.
  let networksUp: boolean | undefined;
  let last: string | null | undefined;
  const report = (reason: string | null) => {
    health.set("firewall", reason);
    if (reason === last) return;
    if (reason) log.error("tenant firewall not in place: instances off the network, new instances refused", { reason });
    else if (last !== undefined) log.info("tenant firewall in place again: instances back on the network, new instances accepted");
    last = reason;
  };

  const checkOnce = async () => {
    let problem = await problemNow();
    if (problem) {
      const degraded = (failures: string[]) =>
        `tenant firewall: ${problem!.reason}${failures.map((f) => `; ${f}`).join("")}; running instances are off the network until it is back (fix: ${problem!.fix})`;
      const failures: string[] = [];
      report(degraded(failures));
      // Again on every check while it is missing: an engine may bring a bridge up when a container restarts.
      const cut = await setNetworksUp(false).then(() => null, errorMessage);
      if (cut === null) networksUp = false;
      else {
        failures.push(`taking instances off the network failed (${cut})`);
        report(degraded(failures));
      }
      const restored = await restore();
      if (!restored.ok) failures.push(`the agent could not put it back (firewall.sh: ${failureText(restored)})`);
      problem = restored.ok ? await problemNow() : problem;
      if (problem) return report(degraded(failures));
      log.info("tenant firewall put back by the agent (firewall.sh)", { pool });
    }
    if (networksUp !== true) {
      const up = await setNetworksUp(true).then(() => null, errorMessage);
      if (up !== null) return report(`tenant firewall: in place, but bringing instances back on the network failed (${up}); the agent tries again`);
      networksUp = true;
    }
    report(null);
  };

  let queued: Promise<void> | null = null;
  let tail: Promise<void> = Promise.resolve();
  const check = () => {
    // Many changes while a check runs (a firewall.sh run is dozens) need one more check, not one each.
    if (queued) return queued;
    const next = tail.then(() => {
      queued = null;
      return checkOnce().catch((error: unknown) => log.error("tenant firewall check failed", { error: errorMessage(error) }));
    });
    queued = next;
    tail = next;
    return next;
  };

  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  const changes = followChanges?.(() => void check());
  return {
    check,
    close() {
      clearInterval(timer);
      changes?.close();
    },
  };
}
