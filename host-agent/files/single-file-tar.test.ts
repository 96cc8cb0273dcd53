// The one-entry tar as the host's GNU tar reads it: the file's bytes under its name (a long name in a
// pax record), and a size past ustar's 8 GiB carried by a pax record too.
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buffer } from "node:stream/consumers";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { singleFileTar } from "./single-file-tar.ts";

const dir = useTempDir("single-file-tar-");

describe("singleFileTar", () => {
  it("extracts to the file's bytes under its name, a name past 100 bytes included", async () => {
    const content = randomBytes(70_000 + 3);
    const source = join(dir.path, "staged");
    await writeFile(source, content);
    for (const name of ["weights.bin", `${"long-é-".repeat(30)}.bin`]) {
      const archive = await buffer(singleFileTar(name, source, content.byteLength, new Date("2026-01-02T03:04:00Z")));
      expect(archive.byteLength % 512).toBe(0);
      const into = join(dir.path, `out-${name.length}`);
      execFileSync("mkdir", ["-p", into]);
      execFileSync("tar", ["-x", "-C", into], { input: archive });
      expect((await readFile(join(into, name))).equals(content)).toBe(true);
      expect(execFileSync("tar", ["-tv", "--utc"], { input: archive }).toString()).toContain("2026-01-02 03:04");
    }
  });

  it("names a size past 8 GiB in a pax record", async () => {
    const size = 9 * 2 ** 30;
    const source = join(dir.path, "huge");
    await writeFile(source, "");
    // Only the headers are read: the file behind them is not there to read.
    const stream = singleFileTar("huge.bin", source, size, new Date());
    // The pax header, its record and the entry's header come first, together.
    const head = await new Promise<Buffer>((resolve) => stream.once("data", (chunk: Buffer) => resolve(chunk)));
    stream.destroy();
    expect(head.byteLength).toBe(3 * 512);
    const listed = spawnSync("tar", ["-tv"], { input: head });
    expect(listed.stdout.toString()).toMatch(new RegExp(`\\b${size}\\b.*huge\\.bin`));
    expect(head.subarray(512, 1024).toString()).toContain(`size=${size}\n`);
  });
});
