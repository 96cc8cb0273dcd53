// A scratch folder for the tests of one file or describe block: made before its first beforeAll
// body needs it, removed after its last afterAll (so a runtime writing into it is closed by then).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll } from "vitest";

/** Call before the hooks that use the folder; read `path` inside hooks and tests. */
export function useTempDir(prefix: string): { readonly path: string } {
  const dir = { path: "" };
  beforeAll(async () => {
    dir.path = await mkdtemp(join(tmpdir(), prefix));
    // A cleanup returned by beforeAll runs after every afterAll of the block.
    return () => rm(dir.path, { recursive: true, force: true });
  });
  return dir;
}
