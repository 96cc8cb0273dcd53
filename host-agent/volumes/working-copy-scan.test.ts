// Reading a working copy the tenant may change meanwhile: a file is opened only where it was scanned.
import { execFileSync } from "node:child_process";
import { mkdir, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testTempDir } from "../../test/support/agent/temp-dir.ts";
import { openScannedFile, scanWorkingCopy } from "./working-copy-scan.ts";

describe("working copy scan", () => {
  it("refuses a file whose directory was swapped for a link after the scan, and a pipe put in a file's place", async () => {
    const dir = testTempDir("copy-scan-");
    const copy = join(dir, "copy");
    const outside = join(dir, "outside");
    await mkdir(join(copy, "d"), { recursive: true });
    await mkdir(outside);
    await writeFile(join(copy, "d/f"), "the tenant's");
    await writeFile(join(outside, "f"), "the host's");
    const scan = await scanWorkingCopy(copy);
    expect(scan.entries.map(({ type, path }) => `${type} ${path}`)).toEqual(["dir d", "file d/f"]);
    const before = await openScannedFile(scan.root, "d/f");
    expect(await before!.readFile("utf8")).toBe("the tenant's");
    await before!.close();

    await rename(join(copy, "d"), join(copy, "moved"));
    await symlink(outside, join(copy, "d"));
    expect(await openScannedFile(scan.root, "d/f")).toBeNull();

    execFileSync("mkfifo", [join(copy, "moved/f.new")]);
    await rename(join(copy, "moved/f.new"), join(copy, "moved/f"));
    expect(await openScannedFile(scan.root, "moved/f")).toBeNull();
  });

  it("refuses a copy that is a link", async () => {
    const dir = testTempDir("copy-scan-");
    await mkdir(join(dir, "real"));
    await symlink(join(dir, "real"), join(dir, "copy"));
    await expect(scanWorkingCopy(join(dir, "copy"))).rejects.toThrow("is not a directory");
  });
});
