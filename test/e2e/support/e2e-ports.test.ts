// The ports the end-to-end stacks listen on: wrangler dev binds its own seconds after it is given it,
// and a port from the kernel's ephemeral range was once taken meanwhile by an outbound connection.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { freePort } from "./e2e-stack.ts";

const ephemeralStart = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);

describe("an end-to-end stack's free port", () => {
  it("lies below the kernel's ephemeral range, which outbound connections draw from", async () => {
    for (let i = 0; i < 20; i++) expect(await freePort()).toBeLessThan(ephemeralStart);
  });
});
