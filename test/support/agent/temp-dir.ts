// Scratch folders of tests, each removed by the test that made it, also when it fails: one for the
// tests of a file or describe block (made before its first beforeAll body needs it, removed after its
// last afterAll, so a runtime writing into it is closed by then), or one for a single test.
import { mkdtempSync, rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, onTestFinished } from "vitest";

/** Call before the hooks that use the folder; read `path` inside hooks and tests. */
export function useTempDir(prefix: string): { readonly path: string } {
  const dir = { path: "" };
  beforeAll(async () => {
    dir.path = await mkdtemp(join(tmpdir(), prefix));
    // A cleanup returned by beforeAll runs after every afterAll of the block. A terminal's shell runs in
    // a session of its own under `script` (host-agent/dev/local-session.ts) and may still write its
    // history as it exits after `script` has: rm tries again while a folder fills up (ENOTEMPTY).
    return () => rm(dir.path, { recursive: true, force: true, maxRetries: 3 });
  });
  return dir;
}

/** A scratch folder for the running test alone, removed when it finishes, passed or failed. */
export function testTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true, maxRetries: 3 }));
  return dir;
}
