// The agent's check of the tenant firewall on nft's real output (fixtures/SOURCES.md) and on that
// output changed as a firewall reload, a hand edit or another pool would change it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readTable, type NftTable, type TableRead } from "./nft-table.ts";
import { firewallProblem } from "./rules-check.ts";

const POOL = "10.213.0.0/16";
const installed = (): NftTable => {
  const read = readTable({ ok: true, stdout: readFileSync(new URL("./fixtures/nft-table-after-traffic.json", import.meta.url), "utf8") });
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
    ["a missing table", { ok: false, reason: "the nftables table inet gpu_rental is missing", fix: "run firewall.sh" }, "the nftables table inet gpu_rental is missing"],
    ["an accept inserted before the rejects", changed((t) => t.rules.splice(2, 0, { chain: "from_instance", comment: "", packets: null, verdict: "accept" })),
      "the table inet gpu_rental chain from_instance has (unnamed) accept, instance reject, instance reject, dns accept, private reject, private reject, carrier-grade nat reject, link-local reject, link-local reject, multicast reject, multicast reject where firewall.sh sets instance reject, instance reject, dns accept, private reject, private reject, carrier-grade nat reject, link-local reject, link-local reject, multicast reject, multicast reject"],
    ["a rule taken out", changed((t) => (t.rules = t.rules.filter((r) => r.comment !== "host"))), "the table inet gpu_rental chain to_host has replies accept, dns accept where firewall.sh sets replies accept, dns accept, host reject"],
    ["a reject turned into an accept", changed((t) => (t.rules.find((r) => r.comment === "private")!.verdict = "accept")), expect.stringContaining("chain from_instance has instance reject, instance reject, dns accept, private accept,") as unknown as string],
    ["a base chain gone", changed((t) => (t.chains = t.chains.filter((c) => c.name !== "input"))), "the table inet gpu_rental has no chain input on the input hook"],
    ["a base chain after the engines' filter chains", changed((t) => (t.chains.find((c) => c.name === "forward")!.prio = 10)),
      "the table inet gpu_rental chain forward is not before the engines' filter chains (priority 10, policy accept)"],
    ["rules for another pool", changed((t) => (t.sets[0]!.elements = ["10.50.0.0/16"])), "the table inet gpu_rental names the pool 10.50.0.0/16, not this agent's 10.213.0.0/16"],
  ])("fails on %s, saying what differs", (_, read, reason) => {
    expect(firewallProblem(read, POOL)).toEqual({ reason, fix: expect.stringContaining("firewall.sh") });
  });
});
