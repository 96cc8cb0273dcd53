// The agent's check of the tenant firewall on nft's real output (fixtures/SOURCES.md): the table as
// firewall.sh writes it, tables with one rule altered in place (its comment and often its verdict
// kept), and that output changed as a firewall reload, a hand edit or another pool would change it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readTable, type NftTable, type TableRead } from "./nft-table.ts";
import { firewallProblem } from "./rules-check.ts";

const POOL = "10.213.0.0/16";
const REFUSE = "counter reject with icmpx admin-prohibited";
const captured = (name: string): TableRead => readTable({ ok: true, stdout: readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8") });
const installed = (): NftTable => {
  const read = captured("nft-table-after-traffic.json");
  if (!read.ok) throw new Error(read.reason);
  return read.table;
};
const changed = (change: (table: NftTable) => void): TableRead => {
  const table = installed();
  change(table);
  return { ok: true, table };
};

describe("the agent's tenant firewall check", () => {
  it("passes on the table firewall.sh writes", () => {
    expect(firewallProblem({ ok: true, table: installed() }, POOL)).toBeNull();
  });

  it.each<[string, TableRead, string]>([
    ["a rule that refuses a narrower address than its name says", captured("nft-table-link-local-narrowed.json"),
      `the table inet gpu_rental chain from_instance rule 7 is (link-local: ip daddr 169.254.1.0/24 ${REFUSE}) where firewall.sh sets (link-local: ip daddr 169.254.0.0/16 ${REFUSE})`],
    ["a refusal turned into an accept", captured("nft-table-private-accepted.json"),
      `the table inet gpu_rental chain from_instance rule 5 is (private: ip6 daddr fc00::/7 counter accept) where firewall.sh sets (private: ip6 daddr fc00::/7 ${REFUSE})`],
    ["replies widened to new connections", captured("nft-table-replies-widened.json"),
      "the table inet gpu_rental chain to_host rule 1 is (replies: ct state in established,related,new counter accept) where firewall.sh sets (replies: ct state in established,related counter accept)"],
  ])("fails on %s, though every rule keeps its name", (_, read, reason) => {
    expect(read.ok && read.table.rules.map((r) => r.comment)).toEqual(installed().rules.map((r) => r.comment));
    expect(firewallProblem(read, POOL)).toEqual({ reason, fix: expect.stringContaining("firewall.sh") });
  });

  it.each<[string, TableRead, string]>([
    ["a missing table", { ok: false, reason: "the nftables table inet gpu_rental is missing", fix: "run firewall.sh" }, "the nftables table inet gpu_rental is missing"],
    ["an accept inserted before the rejects", changed((t) => t.rules.splice(2, 0, { chain: "from_instance", comment: "", packets: null, text: "accept" })),
      `the table inet gpu_rental chain from_instance rule 1 is ((unnamed): accept) where firewall.sh sets (instance: ip daddr @instance_pool ${REFUSE})`],
    ["a rule added after the others", changed((t) => t.rules.push({ chain: "to_host", comment: "", packets: null, text: "accept" })),
      "the table inet gpu_rental chain to_host has a rule firewall.sh does not set, rule 4 ((unnamed): accept)"],
    ["a rule taken out", changed((t) => (t.rules = t.rules.filter((r) => r.comment !== "host"))), `the table inet gpu_rental chain to_host lacks rule 3 (host: ${REFUSE})`],
    ["a base chain gone", changed((t) => (t.chains = t.chains.filter((c) => c.name !== "input"))), "the table inet gpu_rental has no chain input on the input hook"],
    ["a base chain after the engines' filter chains", changed((t) => (t.chains.find((c) => c.name === "forward")!.prio = 10)),
      "the table inet gpu_rental chain forward is not before the engines' filter chains (priority 10, policy accept)"],
    ["rules for another pool", changed((t) => (t.sets[0]!.elements = ["10.50.0.0/16"])), "the table inet gpu_rental names the pool 10.50.0.0/16, not this agent's 10.213.0.0/16"],
  ])("fails on %s, saying what differs", (_, read, reason) => {
    expect(firewallProblem(read, POOL)).toEqual({ reason, fix: expect.stringContaining("firewall.sh") });
  });
});
