// A manifest as the tree it describes, for the files route: what lies at a path, what a directory
// holds, and a version made from another plus what an archive puts into one of its directories, as
// `tar -x -C <dir>` would leave it (the directory and missing parents made, an entry replacing what
// was at its path, a directory replaced by something else taking what it held with it).
import { ApiError } from "../../../core/errors.ts";
import type { ManifestEntry, VolumeManifest } from "../../../protocol/volumes.ts";

/** Mode of a directory made because something is put under it. */
const MADE_DIR_MODE = 0o755;

const encoder = new TextEncoder();

/** `relative` ("" for the root) as the route names it: absolute. */
export const shown = (relative: string) => `/${relative}`;

/** The entry at `path`; the root ("") has none. */
export function entryAt(manifest: VolumeManifest, path: string): ManifestEntry | undefined {
  return manifest.entries.find((entry) => entry.path === path);
}

/** What the directory `path` holds, at any depth ("" for the root: everything). */
export function inside(manifest: VolumeManifest, path: string): ManifestEntry[] {
  if (path === "") return manifest.entries;
  const prefix = `${path}/`;
  return manifest.entries.filter((entry) => entry.path.startsWith(prefix));
}

/** Entries sorted by path in byte order, as manifests keep them (a directory comes before what it holds). */
export function sortedEntries(entries: Iterable<ManifestEntry>): ManifestEntry[] {
  return [...entries]
    .map((entry) => ({ key: encoder.encode(entry.path), entry }))
    .sort((a, b) => compareBytes(a.key, b.key))
    .map(({ entry }) => entry);
}

/**
 * A new version's entries: `base`'s with `added` put in (paths already within the target directory
 * `target`, "" for the root), later entries replacing earlier ones at the same path. A file or link
 * where a directory must be (the target, or a parent of an entry) is refused: 409 conflict.
 */
export function mergedManifest(base: VolumeManifest, target: string, added: readonly ManifestEntry[], nowMs: number): VolumeManifest {
  const tree = new Map(base.entries.map((entry) => [entry.path, entry]));
  const directory = (path: string, why: string) => {
    const there = tree.get(path);
    if (there === undefined) tree.set(path, { type: "dir", path, mode: MADE_DIR_MODE, mtime_ms: nowMs });
    else if (there.type !== "dir") throw new ApiError("conflict", `path: ${shown(path)} is a ${there.type === "file" ? "file" : "symbolic link"} in the volume, not a directory: ${why}`);
  };
  const parents = (path: string, why: string) => {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) directory(parts.slice(0, i).join("/"), why);
  };
  if (target !== "") {
    parents(target, `${shown(target)} cannot be made under it`);
    directory(target, "the archive is extracted into a directory");
  }
  for (const entry of added) {
    parents(entry.path, `${shown(entry.path)} cannot be made under it`);
    const there = tree.get(entry.path);
    if (there?.type === "dir" && entry.type !== "dir") {
      for (const inner of inside({ format: 1, entries: [...tree.values()] }, entry.path)) tree.delete(inner.path);
    }
    tree.set(entry.path, entry);
  }
  return { format: 1, entries: sortedEntries(tree.values()) };
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const length = Math.min(a.byteLength, b.byteLength);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.byteLength - b.byteLength;
}
