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

/**
 * The cache's folder of the Hugging Face model `hf` (e.g. "Qwen/Qwen2.5-0.5B-Instruct":
 * `<cacheDir>/hub/models--Qwen--Qwen2.5-0.5B-Instruct`) when it holds a snapshot, else null. Only
 * this folder is mounted into an instance: the cache root also holds the operator's Hugging Face
 * token (`hf auth login` writes HF_HOME/token) and other tenants' models.
 */
export async function cachedModelFolder(cacheDir: string, hf: string): Promise<string | null> {
  if (hf === "") return null;
  const folder = join(cacheDir, "hub", `models--${hf.split("/").join("--")}`);
  return (await hasSnapshot(folder)) ? folder : null;
}

async function hasSnapshot(modelDir: string): Promise<boolean> {
  const snapshots = await readdir(join(modelDir, "snapshots"), { withFileTypes: true }).catch(() => []);
  return snapshots.some((s) => s.isDirectory());
}
