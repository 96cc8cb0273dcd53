// The tenant firewall as nftables reports it: `nft -j list table inet gpu_rental` (the table
// deploy/host-agent/firewall.sh writes) read into its chains and its rules, each rule named by its
// comment, with what it does (rule-text.ts) and its packet counter. A pure function of the command's result.
import { failureText, type CommandResult } from "../host-command.ts";
import { ruleText } from "./rule-text.ts";

export const TABLE = "gpu_rental";
export const NFT_LIST_ARGS = ["-j", "list", "table", "inet", TABLE] as const;
export const FIREWALL_FIX = "run firewall.sh as root (install.sh does, and the systemd unit runs it before every start)";

export interface NftChain {
  name: string;
  /** The netfilter hook of a base chain (`forward`, `input`); undefined for a chain only jumped to. */
  hook?: string;
  prio?: number;
  policy?: string;
}

export interface NftRule {
  chain: string;
  /** The rule's name as firewall.sh gives it; "" for a rule without one. */
  comment: string;
  /** Its counter's packets; null for a rule without a counter. */
  packets: number | null;
  /** What it matches and does, in nft's words, counter values left out (rule-text.ts). */
  text: string;
}

export interface NftSet {
  name: string;
  /** Addresses and prefixes (`10.213.0.0/16`), as the set holds them. */
  elements: string[];
}

export interface NftTable {
  chains: NftChain[];
  rules: NftRule[];
  sets: NftSet[];
}

export type TableRead = { ok: true; table: NftTable } | { ok: false; reason: string; fix: string };

export function readTable(result: CommandResult): TableRead {
  if (!result.ok) {
    if (result.missing) return { ok: false, reason: "nft is not installed", fix: `apt install nftables, then ${FIREWALL_FIX}` };
    if (/no such file or directory/i.test(result.output)) return { ok: false, reason: `the nftables table inet ${TABLE} is missing`, fix: FIREWALL_FIX };
    return { ok: false, reason: `nft -j list table inet ${TABLE} failed (${failureText(result)})`, fix: "run it as root" };
  }
  let items: Record<string, Record<string, unknown>>[];
  try {
    items = (JSON.parse(result.stdout) as { nftables: Record<string, Record<string, unknown>>[] }).nftables;
    if (!Array.isArray(items)) throw new Error("no nftables array");
  } catch (error) {
    return { ok: false, reason: `nft printed something unexpected (${(error as Error).message})`, fix: "run nft -j list table inet gpu_rental by hand" };
  }
  const chains: NftChain[] = [];
  const rules: NftRule[] = [];
  const sets: NftSet[] = [];
  for (const item of items) {
    if (item.set) {
      const { name, elem } = item.set as { name: string; elem?: unknown[] };
      sets.push({ name, elements: (elem ?? []).map(elementText) });
    }
    if (item.chain) {
      const { name, hook, prio, policy } = item.chain as { name: string; hook?: string; prio?: number; policy?: string };
      chains.push({ name, ...(hook === undefined ? {} : { hook, prio, policy }) });
    }
    if (item.rule) {
      const rule = item.rule as { chain: string; comment?: string; expr?: Record<string, unknown>[] };
      const statements = rule.expr ?? [];
      const counter = statements.find((s) => "counter" in s)?.counter as { packets?: number } | undefined;
      rules.push({ chain: rule.chain, comment: rule.comment ?? "", packets: counter?.packets ?? null, text: ruleText(statements) });
    }
  }
  return { ok: true, table: { chains, rules, sets } };
}

function elementText(element: unknown): string {
  const prefix = (element as { prefix?: { addr: string; len: number } } | null)?.prefix;
  return prefix ? `${prefix.addr}/${prefix.len}` : typeof element === "string" ? element : JSON.stringify(element);
}

/** Packets counted by the rules named `chain/comment` (several rules may share a name: summed). */
export function packetsOf(table: NftTable, chain: string, comment: string): number {
  return table.rules.filter((r) => r.chain === chain && r.comment === comment).reduce((sum, r) => sum + (r.packets ?? 0), 0);
}
