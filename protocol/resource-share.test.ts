// An instance's share of its host's memory and CPUs, by GPUs, less the host's reserve.
import { describe, expect, it } from "vitest";
import { hostReserve, resourceShare } from "./resource-share.ts";

const MIB = 1024 ** 2;
const GIB = 1024 ** 3;
const NANO = 1_000_000_000;
/** An 8 × H100 server: 2 TiB of memory, 224 CPUs. */
const H100_SERVER = { memory_bytes: 2048 * GIB, cpus: 224 };

describe("resource share", () => {
  it("keeps a tenth of the memory and a sixteenth of the CPUs for the host, and shares the rest by GPU", () => {
    expect(hostReserve(H100_SERVER)).toEqual({ memory_bytes: 209_715 * MIB, nano_cpus: 14 * NANO });
    expect(resourceShare(H100_SERVER, 8, 1)).toEqual({ memory_bytes: 235_929 * MIB, nano_cpus: 26.25 * NANO });
    // Rounded down once, after the multiplication: two GPUs' share is not twice one's rounding.
    expect(resourceShare(H100_SERVER, 8, 2)).toEqual({ memory_bytes: 471_859 * MIB, nano_cpus: 52.5 * NANO });
    const all = resourceShare(H100_SERVER, 8, 8);
    expect(all.memory_bytes + hostReserve(H100_SERVER).memory_bytes).toBeLessThanOrEqual(H100_SERVER.memory_bytes);
    expect(all.nano_cpus + hostReserve(H100_SERVER).nano_cpus).toBe(224 * NANO);
  });

  it("never gives instances together more than the host has beside its reserve, in whole MiB and nano-CPUs", () => {
    for (const host of [H100_SERVER, { memory_bytes: 31.3 * GIB, cpus: 12 }, { memory_bytes: 8 * GIB, cpus: 2 }]) {
      for (const gpus of [1, 3, 8]) {
        const share = resourceShare(host, gpus, 1);
        expect(Number.isInteger(share.memory_bytes / MIB) && Number.isInteger(share.nano_cpus)).toBe(true);
        expect(share.memory_bytes * gpus + hostReserve(host).memory_bytes).toBeLessThanOrEqual(host.memory_bytes);
        expect(share.nano_cpus * gpus + hostReserve(host).nano_cpus).toBeLessThanOrEqual(host.cpus * NANO);
      }
    }
  });

  it("keeps at least 4 GiB and one CPU for a small host, and never more than half", () => {
    expect(hostReserve({ memory_bytes: 16 * GIB, cpus: 8 })).toEqual({ memory_bytes: 4 * GIB, nano_cpus: NANO });
    expect(hostReserve({ memory_bytes: 6 * GIB, cpus: 1 })).toEqual({ memory_bytes: 3 * GIB, nano_cpus: NANO / 2 });
  });

  it("counts a host without GPUs, or an instance without one, as one GPU, and an instance never gets more than the host", () => {
    const host = { memory_bytes: 16 * GIB, cpus: 8 };
    expect(resourceShare(host, 0, 0)).toEqual({ memory_bytes: 12 * GIB, nano_cpus: 7 * NANO });
    expect(resourceShare(host, 4, 0)).toEqual({ memory_bytes: 3 * GIB, nano_cpus: 1.75 * NANO });
    expect(resourceShare(host, 2, 4)).toEqual(resourceShare(host, 2, 2));
  });
});
