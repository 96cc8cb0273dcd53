import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { freeLatePort } from "./free-port.ts";

const ephemeralStart = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);

describe("freeLatePort", () => {
  it("picks a port below the kernel's ephemeral range, which no outbound connection can take before the late listener binds it", async () => {
    for (let i = 0; i < 20; i++) {
      const port = await freeLatePort(new Set());
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(ephemeralStart);
    }
  });

  it("never answers a port it was told is taken", async () => {
    const taken = new Set<number>();
    for (let i = 0; i < 50; i++) {
      const port = await freeLatePort(taken);
      expect(taken.has(port)).toBe(false);
      taken.add(port);
    }
  });
});
