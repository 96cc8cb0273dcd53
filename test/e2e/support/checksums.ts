// A directory tree compared across a copy: every file under it by its relative path, as its SHA-256.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export function checksums(root: string, prefix = ""): Record<string, string> {
  const sums: Record<string, string> = {};
  for (const name of readdirSync(join(root, prefix)).sort()) {
    const relative = join(prefix, name);
    if (statSync(join(root, relative)).isDirectory()) Object.assign(sums, checksums(root, relative));
    else sums[relative] = createHash("sha256").update(readFileSync(join(root, relative))).digest("hex");
  }
  return sums;
}
