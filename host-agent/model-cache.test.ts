// The hub cache scan on a temporary cache folder.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cachedModelFolder, scanModelCache } from "./model-cache.ts";

let dir = "";
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("model cache scan", () => {
  it("lists ORG/NAME of models with at least one snapshot, ignoring incomplete and foreign entries", async () => {
    dir = await mkdtemp(join(tmpdir(), "hf-cache-"));
    const hub = join(dir, "hub");
    await mkdir(join(hub, "models--Qwen--Qwen2.5-0.5B-Instruct", "snapshots", "7ae557604adf67be50417f59c2c2f167def9a775"), { recursive: true });
    await mkdir(join(hub, "models--BAAI--bge-small-en-v1.5", "snapshots", "5c38ec7c405ec4b44b94cc5a9bb96e735b38267a"), { recursive: true });
    await mkdir(join(hub, "models--gpt2", "snapshots", "607a30d783dfa663caf39e06633721c8d4cfcd7e"), { recursive: true });
    await mkdir(join(hub, "models--meta-llama--Llama-3.1-8B", "blobs"), { recursive: true });
    await mkdir(join(hub, "datasets--squad--plain", "snapshots", "abc"), { recursive: true });
    await writeFile(join(hub, "version.txt"), "1");
    expect(await scanModelCache(dir)).toEqual(["BAAI/bge-small-en-v1.5", "Qwen/Qwen2.5-0.5B-Instruct", "gpt2"]);
  });

  it("finds one model's own folder when it has a snapshot", async () => {
    dir = await mkdtemp(join(tmpdir(), "hf-cache-"));
    await mkdir(join(dir, "hub", "models--Qwen--Qwen2.5-0.5B-Instruct", "snapshots", "7ae557604adf67be50417f59c2c2f167def9a775"), { recursive: true });
    await mkdir(join(dir, "hub", "models--meta-llama--Llama-3.1-8B", "blobs"), { recursive: true });
    expect(await cachedModelFolder(dir, "Qwen/Qwen2.5-0.5B-Instruct")).toBe(join(dir, "hub", "models--Qwen--Qwen2.5-0.5B-Instruct"));
    expect(await cachedModelFolder(dir, "meta-llama/Llama-3.1-8B")).toBeNull();
    expect(await cachedModelFolder(dir, "BAAI/bge-small-en-v1.5")).toBeNull();
    expect(await cachedModelFolder(dir, "")).toBeNull();
  });

  it("is empty when the cache does not exist", async () => {
    dir = join(tmpdir(), "hf-cache-missing-xyz");
    expect(await scanModelCache(dir)).toEqual([]);
  });
});
