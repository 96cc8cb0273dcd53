// Whether the tenant firewall is in place as deploy/host-agent/firewall.sh writes it, a pure function
// of the table nft reports: the base chains hooked before the engines' filter chains, the pool the
// agent carves instance networks from, and every rule, named by its comment, in firewall.sh's order
// with its verdict. An added rule (an `accept` ahead of the rejects) fails it as surely as a missing
// one: the agent refuses new instances until it passes. (doctor also probes what the rules do.)
import { FIREWALL_FIX, TABLE, type NftTable, type TableRead } from "./nft-table.ts";

type Expected = readonly (readonly [comment: string, verdict: string])[];

const FROM_INSTANCE_TRAFFIC: Expected = [["instance bridge", "goto"], ["instance pool", "goto"]];

/** firewall.sh's rules, chain by chain. */
export const EXPECTED_RULES: Readonly<Record<string, Expected>> = {
  forward: FROM_INSTANCE_TRAFFIC,
  from_instance: [
    ["instance", "reject"], ["instance", "reject"], ["dns", "accept"], ["private", "reject"], ["private", "reject"], ["carrier-grade nat", "reject"],
    ["link-local", "reject"], ["link-local", "reject"], ["multicast", "reject"], ["multicast", "reject"],
  ],
  input: FROM_INSTANCE_TRAFFIC,
  to_host: [["replies", "accept"], ["dns", "accept"], ["host", "reject"]],
};

const BASE_CHAINS = { forward: "forward", input: "input" } as const;

/** Why the firewall does not protect instances in `pool`, or null when it is in place. */
export function firewallProblem(read: TableRead, pool: string): { reason: string; fix: string } | null {
  if (!read.ok) return { reason: read.reason, fix: read.fix };
  const reason = tableProblem(read.table, pool);
  return reason === null ? null : { reason: `the table inet ${TABLE} ${reason}`, fix: FIREWALL_FIX };
}

function tableProblem(table: NftTable, pool: string): string | null {
  for (const [name, hook] of Object.entries(BASE_CHAINS)) {
    const chain = table.chains.find((c) => c.name === name);
    if (chain?.hook !== hook) return `has no chain ${name} on the ${hook} hook`;
    // Filter chains of Docker and podman sit at priority 0: ours must run first.
    if ((chain.prio ?? 0) >= 0 || chain.policy !== "accept") return `chain ${name} is not before the engines' filter chains (priority ${chain.prio}, policy ${chain.policy})`;
  }
  const elements = table.sets.find((s) => s.name === "instance_pool")?.elements ?? [];
  if (elements.length !== 1 || elements[0] !== pool) return `names the pool ${elements.join(", ") || "(none)"}, not this agent's ${pool}`;
  for (const [chain, expected] of Object.entries(EXPECTED_RULES)) {
    const actual = table.rules.filter((r) => r.chain === chain).map((r) => `${r.comment || "(unnamed)"} ${r.verdict ?? "(no verdict)"}`);
    const wanted = expected.map(([comment, verdict]) => `${comment} ${verdict}`);
    if (actual.join(", ") !== wanted.join(", ")) return `chain ${chain} has ${actual.join(", ") || "no rules"} where firewall.sh sets ${wanted.join(", ")}`;
  }
  return null;
}
