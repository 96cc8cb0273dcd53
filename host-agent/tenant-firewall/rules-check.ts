// Whether the tenant firewall is in place as deploy/host-agent/firewall.sh writes it, a pure function
// of the table nft reports: the base chains hooked before the engines' filter chains, the pool the
// agent carves instance networks from, and every rule in firewall.sh's order, each by its comment and
// by what it matches and does (rule-text.ts): a rule that keeps its name but matches another address,
// or accepts what it should refuse, fails it as surely as an added `accept` or a missing rule. While it
// fails the agent cuts instances off and puts the table back (rules-watch.ts). (doctor also probes
// what the rules do.)
import { FIREWALL_FIX, TABLE, type NftTable, type TableRead } from "./nft-table.ts";

type Expected = readonly (readonly [comment: string, text: string])[];

const REFUSE = "counter reject with icmpx admin-prohibited";
const fromInstanceTraffic = (chain: string): Expected => [["instance bridge", `meta iifname gpr-* goto ${chain}`], ["instance pool", `ip saddr @instance_pool goto ${chain}`]];
const DNS = "meta l4proto { tcp, udp } th dport 53 counter accept";

/** firewall.sh's rules, chain by chain, as nft -j reports them (rule-text.ts). */
export const EXPECTED_RULES: Readonly<Record<string, Expected>> = {
  forward: fromInstanceTraffic("from_instance"),
  from_instance: [
    ["instance", `ip daddr @instance_pool ${REFUSE}`],
    ["instance", `meta oifname gpr-* ${REFUSE}`],
    ["dns", DNS],
    ["private", `ip daddr { 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 } ${REFUSE}`],
    ["private", `ip6 daddr fc00::/7 ${REFUSE}`],
    ["carrier-grade nat", `ip daddr 100.64.0.0/10 ${REFUSE}`],
    ["link-local", `ip daddr 169.254.0.0/16 ${REFUSE}`],
    ["link-local", `ip6 daddr fe80::/10 ${REFUSE}`],
    ["multicast", `ip daddr 224.0.0.0/4 ${REFUSE}`],
    ["multicast", `ip6 daddr ff00::/8 ${REFUSE}`],
  ],
  input: fromInstanceTraffic("to_host"),
  to_host: [["replies", "ct state in established,related counter accept"], ["dns", DNS], ["host", REFUSE]],
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
    const actual = table.rules.filter((r) => r.chain === chain).map((r) => `${r.comment || "(unnamed)"}: ${r.text}`);
    const wanted = expected.map(([comment, text]) => `${comment}: ${text}`);
    const at = wanted.findIndex((rule, i) => actual[i] !== rule);
    const differs = at === -1 ? (actual.length > wanted.length ? wanted.length : -1) : at;
    if (differs === -1) continue;
    const [found, set] = [actual[differs], wanted[differs]];
    if (found === undefined) return `chain ${chain} lacks rule ${differs + 1} (${set})`;
    if (set === undefined) return `chain ${chain} has a rule firewall.sh does not set, rule ${differs + 1} (${found})`;
    return `chain ${chain} rule ${differs + 1} is (${found}) where firewall.sh sets (${set})`;
  }
  return null;
}
