// Instance ids name their machine: the encoding round-trips, the public format is unchanged, and
// anything else (an id from before, a malformed one) names no machine or a machine by chance.
import { describe, expect, it } from "vitest";
import { base32, machineIdOfInstance, MAX_MACHINE_ID, newInstanceId } from "./ids.ts";

describe("instance ids", () => {
  it.each([1, 2, 31, 32, 1023, 1024, 65_536, MAX_MACHINE_ID])("machine %i round-trips, in the public format", (machineId) => {
    const id = newInstanceId(machineId);
    expect(id).toMatch(/^i-[a-z2-7]{16}$/);
    expect(machineIdOfInstance(id)).toBe(machineId);
  });

  it("the machine is the first 4 characters, big-endian base32; the other 12 are random", () => {
    expect(newInstanceId(1).slice(0, 6)).toBe("i-aaab");
    expect(newInstanceId(33).slice(0, 6)).toBe("i-aabb");
    expect(newInstanceId(MAX_MACHINE_ID).slice(0, 6)).toBe("i-7777");
    const tails = new Set(Array.from({ length: 50 }, () => newInstanceId(7).slice(6)));
    expect(tails.size).toBe(50);
  });

  it("a machine id that does not fit is refused", () => {
    for (const machineId of [0, -1, MAX_MACHINE_ID + 1, 1.5, Number.NaN]) {
      expect(() => newInstanceId(machineId), String(machineId)).toThrow(RangeError);
    }
  });

  it("names no machine when malformed or machine 0", () => {
    for (const id of ["", "i-", "i-aaab", "i-aaabaaaaaaaaaaaaa", "i-AAABAAAAAAAAAAAA", "x-aaabaaaaaaaaaaaa", "i-aaab0aaaaaaaaaaa", "i-aaaaaaaaaaaaaaaa"]) {
      expect(machineIdOfInstance(id), id).toBeNull();
    }
  });

  it("an id made before machines were encoded names some machine by chance (the proxy's slow path finds its own)", () => {
    expect(machineIdOfInstance("i-zzzzqwertyuiopas")).toBe(25 * 32 ** 3 + 25 * 32 ** 2 + 25 * 32 + 25);
  });
});

describe("base32", () => {
  it("is RFC 4648 in lowercase, without padding", () => {
    expect(base32(new TextEncoder().encode("foobar"))).toBe("mzxw6ytboi");
    expect(base32(new Uint8Array([]))).toBe("");
    expect(base32(new Uint8Array([0xff]))).toBe("74");
  });
});
