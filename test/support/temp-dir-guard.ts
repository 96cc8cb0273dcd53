// Vitest's global setup: the run's temporary folders go in one folder of its own (TMPDIR, which every
// test file and every process they start inherit), so what is left there at the end was made by this
// run and no other. A folder left with a name the tests make (their mkdtemp, useTempDir and
// testTempDir prefixes, read from the sources) fails the run, naming it: each test removes what it
// made, also when it fails (temp-dir.ts). The run's folder is removed either way.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
const SOURCES = ["cli", "host-agent", "scripts", "test", "bench"];
/** The prefix of a folder a source makes in the temporary folder. */
const MADE_PREFIX = /(?:testTempDir|useTempDir|mkdtemp(?:Sync)?\(join\(tmpdir\(\),)\s*\(?\s*["'`]([a-z0-9][a-z0-9-]*)/g;

export default function guardTempDirs(): () => void {
  const previous = process.env.TMPDIR;
  const run = mkdtempSync(join(tmpdir(), "gpu-rental-test-run-"));
  process.env.TMPDIR = run;
  return () => {
    const left = readdirSync(run);
    rmSync(run, { recursive: true, force: true });
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    const prefixes = madePrefixes();
    const ours = left.filter((name) => prefixes.some((prefix) => name.startsWith(prefix)));
    if (ours.length === 0) return;
    console.error(`tests left ${ours.length} temporary folder(s) behind (removed now): ${ours.join(", ")}; each test removes what it makes, also when it fails (test/support/agent/temp-dir.ts)`);
    process.exitCode = 1;
  };
}

/** Every prefix the sources give the temporary folders they make. */
function madePrefixes(): string[] {
  const prefixes = new Set<string>();
  for (const folder of SOURCES) {
    for (const entry of readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts") || relative(ROOT, entry.parentPath).includes("node_modules")) continue;
      for (const match of readFileSync(join(entry.parentPath, entry.name), "utf8").matchAll(MADE_PREFIX)) prefixes.add(match[1]!);
    }
  }
  return [...prefixes];
}
