import { describe, expect, it } from "vitest";
import { DUMMY_PASSWORD_HASH, hashPassword, needsRehash, PASSWORD_ITERATIONS, RUNTIME_MAX_ITERATIONS, verifyPassword } from "./password-hash.ts";

describe("password hashes", () => {
  it("use the most PBKDF2 iterations the Workers runtime accepts, which workerd computes", async () => {
    expect(PASSWORD_ITERATIONS).toBe(RUNTIME_MAX_ITERATIONS);
    const stored = await hashPassword("correct horse battery staple");
    expect(stored).toEqual({ algorithm: "PBKDF2-SHA256", iterations: 100_000, salt: expect.stringMatching(/^[0-9a-f]{32}$/), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it("match the password they were made from and no other", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(await verifyPassword("correct horse battery staple", stored)).toBe(true);
    expect(await verifyPassword("correct horse battery stapl", stored)).toBe(false);
    expect(await verifyPassword("Correct horse battery staple", stored)).toBe(false);
  });

  it("are salted: one password hashed twice gives different hashes", async () => {
    const [a, b] = [await hashPassword("same password here"), await hashPassword("same password here")];
    expect(a.salt).not.toBe(b.salt);
    expect(a.hash).not.toBe(b.hash);
  });

  it("stored with more iterations than the runtime allows, or another algorithm, never match and never throw", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(await verifyPassword("correct horse battery staple", { ...stored, iterations: RUNTIME_MAX_ITERATIONS + 1 })).toBe(false);
    expect(await verifyPassword("correct horse battery staple", { ...stored, algorithm: "bcrypt" })).toBe(false);
  });

  it("the dummy hash checked for unknown emails matches nothing", async () => {
    expect(await verifyPassword("", DUMMY_PASSWORD_HASH)).toBe(false);
    expect(await verifyPassword("correct horse battery staple", DUMMY_PASSWORD_HASH)).toBe(false);
  });

  it("made with fewer iterations than today's need re-hashing", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(needsRehash(stored)).toBe(false);
    expect(needsRehash({ ...stored, iterations: 10_000 })).toBe(true);
  });
});
