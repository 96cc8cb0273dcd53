// The tenant firewall's table read from real nft output (fixtures/SOURCES.md): chains, rules by
// their comments, what they do, counters; and each way reading it fails.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { packetsOf, readTable } from "./nft-table.ts";

const REFUSE = "counter reject with icmpx admin-prohibited";
const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

describe("the gpu_rental table as nft -j prints it", () => {
  it("reads the base chains' hooks, and each rule's name, counter and what it matches and does", () => {
    const read = readTable({ ok: true, stdout: fixture("nft-table-after-traffic.json") });
    expect(read.ok && read.table).toEqual({
      chains: [
        { name: "forward", hook: "forward", prio: -10, policy: "accept" },
        { name: "from_instance" },
        { name: "input", hook: "input", prio: -10, policy: "accept" },
        { name: "to_host" },
      ],
      rules: [
        { chain: "forward", comment: "instance bridge", packets: null, text: "meta iifname gpr-* goto from_instance" },
        { chain: "forward", comment: "instance pool", packets: null, text: "ip saddr @instance_pool goto from_instance" },
        { chain: "from_instance", comment: "instance", packets: 1, text: `ip daddr @instance_pool ${REFUSE}` },
        { chain: "from_instance", comment: "instance", packets: 0, text: `meta oifname gpr-* ${REFUSE}` },
        { chain: "from_instance", comment: "dns", packets: 0, text: "meta l4proto { tcp, udp } th dport 53 counter accept" },
        { chain: "from_instance", comment: "private", packets: 1, text: `ip daddr { 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 } ${REFUSE}` },
        { chain: "from_instance", comment: "private", packets: 0, text: `ip6 daddr fc00::/7 ${REFUSE}` },
        { chain: "from_instance", comment: "carrier-grade nat", packets: 1, text: `ip daddr 100.64.0.0/10 ${REFUSE}` },
        { chain: "from_instance", comment: "link-local", packets: 1, text: `ip daddr 169.254.0.0/16 ${REFUSE}` },
        { chain: "from_instance", comment: "link-local", packets: 0, text: `ip6 daddr fe80::/10 ${REFUSE}` },
        { chain: "from_instance", comment: "multicast", packets: 0, text: `ip daddr 224.0.0.0/4 ${REFUSE}` },
        { chain: "from_instance", comment: "multicast", packets: 0, text: `ip6 daddr ff00::/8 ${REFUSE}` },
        { chain: "input", comment: "instance bridge", packets: null, text: "meta iifname gpr-* goto to_host" },
        { chain: "input", comment: "instance pool", packets: null, text: "ip saddr @instance_pool goto to_host" },
        { chain: "to_host", comment: "replies", packets: 0, text: "ct state in established,related counter accept" },
        { chain: "to_host", comment: "dns", packets: 0, text: "meta l4proto { tcp, udp } th dport 53 counter accept" },
        { chain: "to_host", comment: "host", packets: 2, text: REFUSE },
      ],
      sets: [{ name: "instance_pool", elements: ["10.213.0.0/16"] }],
    });
    expect(read.ok && packetsOf(read.table, "to_host", "host")).toBe(2);
    expect(read.ok && packetsOf(read.table, "from_instance", "private")).toBe(1);
    expect(read.ok && packetsOf(read.table, "to_host", "instance")).toBe(0);
  });

  it.each([
    ["a host without the table", { ok: false, missing: false, exitCode: 1, output: fixture("nft-no-table.txt") }, "the nftables table inet gpu_rental is missing", /firewall.sh/],
    ["a user who is not root", { ok: false, missing: false, exitCode: 1, output: fixture("nft-not-root.txt") }, "nft -j list table inet gpu_rental failed (exit 1: Operation not permitted (you must be root))", /as root/],
    ["a host without nft", { ok: false, missing: true, exitCode: null, output: "spawn nft ENOENT" }, "nft is not installed", /apt install nftables/],
    ["output that is not nft's JSON", { ok: true, stdout: "table inet gpu_rental {" }, expect.stringContaining("nft printed something unexpected"), /by hand/],
  ] as const)("%s: says why, and how to fix it", (_, result, reason, fix) => {
    const read = readTable(result);
    expect(read).toMatchObject({ ok: false, reason });
    expect(!read.ok && read.fix).toMatch(fix);
  });
});
