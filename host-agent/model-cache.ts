// Which models are already in the Hugging Face hub cache (`<cacheDir>/hub/models--ORG--NAME/snapshots/<rev>/`),
// so the fleet can prefer machines that need no download.
import { readdir } from "node:fs/promises";
import { join } from "node:path";

export async function scanModelCache(cacheDir: string): Promise<string[]> {
  const hub = join(cacheDir, "hub");
  const entries = await readdir(hub, { withFileTypes: true }).catch(() => []);
  const models: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith("models--")) continue;
    const snapshots = await readdir(join(hub, entry.name, "snapshots"), { withFileTypes: true }).catch(() => []);
    if (!snapshots.some((s) => s.isDirectory())) continue;
    models.push(entry.name.slice("models--".length).split("--").join("/"));
  }
  return models.sort();
}
