import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { AGENT_NODE_FLAGS } from "./node-flags.ts";
import { COLLECT_EVERY_BYTES, RelayedBuffers } from "./relayed-buffers.ts";

const KiB = 1024;
const MiB = 1024 * KiB;

describe("RelayedBuffers", () => {
  it("asks for one collection per COLLECT_EVERY_BYTES relayed, counted across reads and writes", () => {
    let collections = 0;
    const relayed = new RelayedBuffers(() => collections++);
    for (let i = 0; i < COLLECT_EVERY_BYTES / (64 * KiB) - 1; i++) relayed.relayed(64 * KiB);
    expect(collections).toBe(0);
    relayed.relayed(64 * KiB);
    expect(collections).toBe(1);
    relayed.relayed(COLLECT_EVERY_BYTES - 1);
    expect(collections).toBe(1);
    relayed.relayed(1);
    expect(collections).toBe(2);
  });

  it("relays without collecting where the process has no gc", () => {
    const relayed = new RelayedBuffers(null);
    expect(() => relayed.relayed(4 * COLLECT_EVERY_BYTES)).not.toThrow();
  });

  // The agent's socket as V8 sees it: a new 64 KiB buffer per read, relayed and dropped, a few in flight.
  it("in a process started as the agent is, keeps the buffers relayed and not yet collected to about two batches", async () => {
    const script = `
      import { RelayedBuffers } from ${JSON.stringify(new URL("./relayed-buffers.ts", import.meta.url).href)};
      const relayed = new RelayedBuffers();
      const inFlight = [];
      const before = process.memoryUsage().arrayBuffers;
      let peak = 0;
      for (let i = 0; i < ${(256 * MiB) / (64 * KiB)}; i++) {
        const read = Buffer.allocUnsafeSlow(${64 * KiB}).fill(i);
        inFlight.push(read);
        if (inFlight.length > 4) inFlight.shift();
        relayed.relayed(read.byteLength);
        peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
        await new Promise((resolve) => setImmediate(resolve));
      }
      console.log(peak);`;
    const { stdout } = await promisify(execFile)(process.execPath, [...AGENT_NODE_FLAGS, "--input-type=module", "-e", script]);
    expect(Number(stdout)).toBeLessThanOrEqual(2 * COLLECT_EVERY_BYTES + 4 * 64 * KiB);
  });
});
