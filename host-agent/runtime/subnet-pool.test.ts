// Choosing a free /28 for an instance network out of the agent's pool.
import { describe, expect, it } from "vitest";
import { freeSubnet, parsePool, poolContains } from "./subnet-pool.ts";

describe("instance subnets", () => {
  it("takes the first /28 of the pool that overlaps no existing network", () => {
    expect(freeSubnet("10.213.0.0/16", [])).toBe("10.213.0.0/28");
    expect(freeSubnet("10.213.0.0/16", ["10.213.0.0/28", "10.213.0.16/28", "10.88.0.0/16"])).toBe("10.213.0.32/28");
    // A wider network inside the pool blocks every /28 it covers; IPv6 subnets are ignored.
    expect(freeSubnet("10.213.0.0/16", ["10.213.0.0/24", "fd00::/64"])).toBe("10.213.1.0/28");
    // A network covering the whole pool leaves nothing.
    expect(freeSubnet("10.213.0.0/24", ["10.0.0.0/8"])).toBeNull();
  });

  it("says null when every /28 is taken", () => {
    const used = Array.from({ length: 16 }, (_, i) => `192.168.7.${i * 16}/28`);
    expect(freeSubnet("192.168.7.0/24", used)).toBeNull();
    expect(freeSubnet("192.168.7.0/24", used.slice(1))).toBe("192.168.7.0/28");
  });

  it.each([
    ["10.213.0.0", '"10.213.0.0" is not an IPv4 CIDR like 10.213.0.0/16'],
    ["10.256.0.0/16", '"10.256.0.0/16" is not an IPv4 CIDR like 10.213.0.0/16'],
    ["10.213.4.0/16", '"10.213.4.0/16" has host bits set; did you mean 10.213.0.0/16?'],
    ["10.0.0.0/7", '"10.0.0.0/7" must be between a /8 and a /24'],
    ["10.213.0.0/25", '"10.213.0.0/25" must be between a /8 and a /24'],
  ])("refuses the pool %s", (pool, error) => {
    expect(parsePool(pool)).toEqual({ error });
  });

  it("knows which addresses lie in the pool (doctor probes a private address outside it)", () => {
    expect(["10.213.0.0", "10.213.255.255", "10.212.255.255", "10.214.0.0", "fe80::1", "not an address"].map((a) => poolContains("10.213.0.0/16", a)))
      .toEqual([true, true, false, false, false, false]);
  });
});
