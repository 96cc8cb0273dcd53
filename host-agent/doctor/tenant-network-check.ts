// Doctor's tenant network check, a pure function of the probe's report (tenant-network-probe.ts):
// it passes only when every attempt failed and was refused by the rule meant for it, and the table
// is as firewall.sh writes it, rule by rule (rules-check.ts): a rule no probe tries (IPv6 private
// addresses, multicast) counts as much as one it does.
import { BRIDGE_PREFIX } from "../runtime/docker-network.ts";
import { FIREWALL_FIX, TABLE } from "../tenant-firewall/nft-table.ts";
import { firewallProblem } from "../tenant-firewall/rules-check.ts";
import { fail, ok, type CheckResult } from "./check.ts";
import type { ProbeReport } from "./tenant-network-probe.ts";

const NAME = "tenant network";

export function checkTenantNetwork(report: ProbeReport, pool: string): CheckResult {
  if (!report.ok) return fail(NAME, `the probe instances could not run (${report.error})`, "fix the docker check first; the probe needs the engine and its image (--probe-image)");
  const { attempts, table, bridgeNamed } = report;
  const reached = attempts.filter((a) => a.reached);
  const unmet = attempts.filter((a) => !a.reached && !a.ruleMet);
  if (!bridgeNamed) {
    return fail(NAME, `the engine did not name the probe's bridge ${BRIDGE_PREFIX}…, so the rules that know instances by their bridge (all of their IPv6) miss them`, "use a Docker Engine or podman that honours the network option com.docker.network.bridge.name");
  }
  const altered = table.ok ? firewallProblem(table, pool) : null;
  if (reached.length === 0 && unmet.length === 0 && altered === null) {
    return ok(NAME, `a probe instance in ${pool} was refused ${attempts.map((a) => `${a.what} (${a.target})`).join(", ")}, each by its rule`);
  }
  const problems = [
    ...(table.ok ? [] : [table.reason]),
    ...(altered ? [altered.reason] : []),
    ...reached.map((a) => `an instance reached ${a.what} (${a.target})`),
    ...(table.ok ? unmet.map((a) => `no packet to ${a.what} (${a.target}) met the rule ${a.rule}`) : []),
  ];
  if (!table.ok) return fail(NAME, problems.join("; "), table.fix);
  // A running agent puts such a table back within seconds; doctor says what it found.
  if (altered) return fail(NAME, problems.join("; "), altered.fix);
  return fail(NAME, `${problems.join("; ")}: the table inet ${TABLE} is there but bypassed`, `${FIREWALL_FIX}; if it still fails, look for rules added to table inet ${TABLE} (nft list table inet ${TABLE})`);
}
