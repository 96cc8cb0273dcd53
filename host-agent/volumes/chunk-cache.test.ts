// The host's chunk cache on a temporary folder: its bound, least recently used eviction, pins, and
// what it finds on disk after a restart.
import { createHash } from "node:crypto";
import { readdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testTempDir } from "../../test/support/agent/temp-dir.ts";
import { ChunkCache } from "./chunk-cache.ts";

const chunk = (text: string) => {
  const bytes = Buffer.alloc(100, text);
  return { hash: createHash("sha256").update(bytes).digest("hex"), bytes };
};
const [a, b, c, d] = ["a", "b", "c", "d"].map(chunk) as [ReturnType<typeof chunk>, ReturnType<typeof chunk>, ReturnType<typeof chunk>, ReturnType<typeof chunk>];

describe("chunk cache", () => {
  it("stays within its bound, evicting the least recently used chunk", async () => {
    const dir = testTempDir("chunk-cache-");
    const cache = new ChunkCache(dir, 300);
    await cache.put(a.hash, a.bytes);
    await cache.put(b.hash, b.bytes);
    await cache.put(c.hash, c.bytes);
    expect(await cache.read(a.hash)).toEqual(a.bytes);
    await cache.put(d.hash, d.bytes);
    expect(cache.bytes).toBe(300);
    expect(await cache.has(b.hash)).toBe(false);
    expect((await readdir(dir)).sort()).toEqual([a.hash, c.hash, d.hash].sort());
    expect(await cache.read(b.hash)).toBeNull();
  });

  it("never evicts a chunk a restore has pinned, and keeps nothing it cannot fit", async () => {
    const dir = testTempDir("chunk-cache-");
    const cache = new ChunkCache(dir, 200);
    await cache.put(a.hash, a.bytes);
    await cache.put(b.hash, b.bytes);
    const release = cache.pin([a.hash, b.hash]);
    await cache.put(c.hash, c.bytes);
    expect(await cache.has(c.hash)).toBe(false);
    expect(cache.bytes).toBe(200);
    release();
    await cache.put(c.hash, c.bytes);
    expect(await cache.has(a.hash)).toBe(false);
    expect(await cache.has(c.hash)).toBe(true);
    expect(cache.bytes).toBe(200);
  });

  it("after a restart knows the chunks on disk by their last use, drops a crashed put's leftovers, and meets a lowered bound", async () => {
    const dir = testTempDir("chunk-cache-");
    const before = new ChunkCache(dir, 300);
    await before.put(a.hash, a.bytes);
    await before.put(b.hash, b.bytes);
    await before.put(c.hash, c.bytes);
    for (const [{ hash }, minutesAgo] of [[a, 90], [b, 60], [c, 30]] as const) {
      const then = new Date(Date.now() - minutesAgo * 60_000);
      await utimes(join(dir, hash), then, then);
    }
    await before.read(a.hash);
    await writeFile(join(dir, `${d.hash}.0123456789ab.tmp`), "partial");
    const after = new ChunkCache(dir, 200);
    expect(await after.has(a.hash)).toBe(true);
    expect(after.bytes).toBe(200);
    expect(await after.has(b.hash)).toBe(false);
    expect((await readdir(dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });
});
