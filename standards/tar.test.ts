// The tar headers as GNU tar reads them: each type, the fields ustar holds, and what goes past them
// into a pax record (a name or link target over 100 bytes, a size over 8 GiB) at the size counted.
import { execFileSync, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { TAR_END, tarArchiveBytes, tarEntryHead, type TarEntry } from "./tar.ts";

const MTIME = Date.UTC(2026, 0, 2, 3, 4) / 1000;

/** GNU tar's verbose listing of an archive of `entries` without data (sizes must be 0, or only headers are listed). */
function listed(entries: TarEntry[]): string {
  const archive = Buffer.concat([...entries.map((entry) => tarEntryHead(entry)), TAR_END]);
  return execFileSync("tar", ["-tv", "--utc", "--numeric-owner"], { input: archive }).toString();
}

describe("tar headers", () => {
  it("lists each type with its mode, owner, time and link target", () => {
    const lines = listed([
      { name: "d", type: "directory", mode: 0o40755, size: 0, mtime: MTIME },
      { name: "d/run.sh", type: "file", mode: 0o100750, size: 0, mtime: MTIME },
      { name: "d/latest", type: "symlink", mode: 0o120777, size: 0, mtime: MTIME, linkName: "run.sh" },
      { name: "d/pipe", type: "fifo", mode: 0o10600, size: 0, mtime: MTIME },
    ]).trim().split("\n");
    expect(lines).toEqual([
      expect.stringMatching(/^drwxr-xr-x 0\/0 +0 2026-01-02 03:04 d\/$/),
      expect.stringMatching(/^-rwxr-x--- 0\/0 +0 2026-01-02 03:04 d\/run\.sh$/),
      expect.stringMatching(/^lrwxrwxrwx 0\/0 +0 2026-01-02 03:04 d\/latest -> run\.sh$/),
      expect.stringMatching(/^prw------- 0\/0 +0 2026-01-02 03:04 d\/pipe$/),
    ]);
  });

  it("keeps a name of exactly 100 bytes in ustar, and puts a longer one, in UTF-8, in a pax record", () => {
    const exact = "n".repeat(100);
    expect(tarEntryHead({ name: exact, type: "file", mode: 0o644, size: 0, mtime: MTIME }).byteLength).toBe(512);
    const long = `${"données-".repeat(20)}/weights.bin`;
    const target = `../${"cible-é".repeat(20)}`;
    const head = tarEntryHead({ name: long, type: "symlink", mode: 0o777, size: 0, mtime: MTIME, linkName: target });
    // A pax header, its two records in one block, the ustar header.
    expect(head.byteLength).toBe(3 * 512);
    expect(listed([
      { name: exact, type: "file", mode: 0o644, size: 0, mtime: MTIME },
      { name: long, type: "symlink", mode: 0o777, size: 0, mtime: MTIME, linkName: target },
    ])).toContain(`${exact}\n`);
    // Names as their bytes, whatever the locale (in C's, tar would escape the é).
    expect(execFileSync("tar", ["-t", "--quoting-style=literal"], { input: Buffer.concat([head, TAR_END]) }).toString()).toBe(`${long}\n`);
    expect(execFileSync("tar", ["-tv", "--quoting-style=literal"], { input: Buffer.concat([head, TAR_END]) }).toString()).toContain(` -> ${target}\n`);
  });

  it("names a size past 8 GiB in a pax record, and counts an archive's bytes as written", () => {
    const huge: TarEntry = { name: "huge.bin", type: "file", mode: 0o644, size: 9 * 2 ** 30, mtime: MTIME };
    const head = tarEntryHead(huge);
    expect(Buffer.from(head.subarray(512, 1024)).toString()).toContain(`size=${huge.size}\n`);
    // Only the headers: tar lists the entry, then finds its data missing.
    expect(spawnSync("tar", ["-tv"], { input: Buffer.from(head) }).stdout.toString()).toMatch(new RegExp(`\\b${huge.size}\\b.*huge\\.bin`));
    const small: TarEntry = { name: "a.txt", type: "file", mode: 0o644, size: 3, mtime: MTIME };
    expect(tarArchiveBytes([small, huge])).toBe(512 + 512 + 3 * 512 + huge.size + 2 * 512);
  });
});
