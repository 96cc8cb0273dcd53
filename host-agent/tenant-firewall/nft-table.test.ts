// The tenant firewall's table read from real nft output (fixtures/SOURCES.md): chains, rules by
// their comments, counters; and each way reading it fails.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { packetsOf, readTable } from "./nft-table.ts";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

describe("the gpu_rental table as nft -j prints it", () => {
  it("reads the base chains' hooks, and each rule's name, counter and verdict", () => {
    const read = readTable({ ok: true, stdout: fixture("nft-table-after-traffic.json") });
    expect(read.ok && read.table).toEqual({
      chains: [
        { name: "forward", hook: "forward", prio: -10, policy: "accept" },
        { name: "from_instance" },
        { name: "input", hook: "input", prio: -10, policy: "accept" },
        { name: "to_host" },
      ],
      rules: [
        { chain: "forward", comment: "instance bridge", packets: null, verdict: "goto" },
        { chain: "forward", comment: "instance pool", packets: null, verdict: "goto" },
        { chain: "from_instance", comment: "instance", packets: 1, verdict: "reject" },
        { chain: "from_instance", comment: "instance", packets: 0, verdict: "reject" },
        { chain: "from_instance", comment: "dns", packets: 0, verdict: "accept" },
        { chain: "from_instance", comment: "private", packets: 1, verdict: "reject" },
        { chain: "from_instance", comment: "private", packets: 0, verdict: "reject" },
        { chain: "from_instance", comment: "carrier-grade nat", packets: 1, verdict: "reject" },
        { chain: "from_instance", comment: "link-local", packets: 1, verdict: "reject" },
        { chain: "from_instance", comment: "link-local", packets: 0, verdict: "reject" },
        { chain: "from_instance", comment: "multicast", packets: 0, verdict: "reject" },
        { chain: "from_instance", comment: "multicast", packets: 0, verdict: "reject" },
        { chain: "input", comment: "instance bridge", packets: null, verdict: "goto" },
        { chain: "input", comment: "instance pool", packets: null, verdict: "goto" },
        { chain: "to_host", comment: "replies", packets: 0, verdict: "accept" },
        { chain: "to_host", comment: "dns", packets: 0, verdict: "accept" },
        { chain: "to_host", comment: "host", packets: 2, verdict: "reject" },
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
