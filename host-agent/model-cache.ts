// Which models are already in the Hugging Face hub cache (`<cacheDir>/hub/models--ORG--NAME/snapshots/<rev>/`),
// so the fleet can prefer machines that need no download and the docker runtime can serve them offline.
import { readdir } from "node:fs/promises";
import { join } from "node:path";

export async function scanModelCache(cacheDir: string): Promise<string[]> {
  const hub = join(cacheDir, "hub");
  const entries = await readdir(hub, { withFileTypes: true }).catch(() => []);
  const models: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith("models--")) continue;
    if (await hasSnapshot(join(hub, entry.name))) models.push(entry.name.slice("models--".length).split("--").join("/"));
  }
  return models.sort();
}

/** Whether the cache holds a snapshot of the Hugging Face model `hf` (e.g. "Qwen/Qwen2.5-0.5B-Instruct"). */
export async function isModelCached(cacheDir: string, hf: string): Promise<boolean> {
  return hf !== "" && hasSnapshot(join(cacheDir, "hub", `models--${hf.split("/").join("--")}`));
}

async function hasSnapshot(modelDir: string): Promise<boolean> {
  const snapshots = await readdir(join(modelDir, "snapshots"), { withFileTypes: true }).catch(() => []);
  return snapshots.some((s) => s.isDirectory());
}
