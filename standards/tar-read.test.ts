// The streaming reader against what GNU tar writes in each of its formats (gnu, its default; pax;
// ustar): every type, long names and link targets, empty and over-8-MiB files, bodies read or skipped,
// the stream cut into pieces of any size; and every refusal, each naming the entry or the byte.
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { link, lstat, mkdir, readdir, readFile, readlink, symlink, truncate, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { testTempDir, useTempDir } from "../test/support/agent/temp-dir.ts";
import { readTar, TarError } from "./tar-read.ts";
import { TAR_BLOCK_BYTES } from "./tar.ts";

const dir = useTempDir("tar-read-");
const LONG_DIR = `${"dossier-é-".repeat(8)}/${"nested-".repeat(12)}`;
const LONG_FILE = `${LONG_DIR}/${"weights-".repeat(15)}.bin`;
const LONG_TARGET = `../${"cible-".repeat(30)}`;
const MTIME = Date.UTC(2026, 0, 2, 3, 4, 5) / 1000;

interface Listed {
  name: string;
  type: string;
  mode: number;
  size: number;
  mtime: number;
  linkName?: string;
  sha256?: string;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** `bytes` as a web stream, in pieces of the sizes given in turn (an archive arrives cut anywhere). */
function streamOf(bytes: Uint8Array, pieces = [TAR_BLOCK_BYTES]): ReadableStream<Uint8Array> {
  let at = 0;
  let turn = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.byteLength) return controller.close();
      const size = pieces[turn++ % pieces.length]!;
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

/** Every entry read, with its body's hash when `bodies` (else the bodies are left unread). */
async function listed(stream: ReadableStream<Uint8Array>, bodies = true): Promise<Listed[]> {
  const out: Listed[] = [];
  for await (const { entry, body } of readTar(stream)) {
    const item: Listed = { ...entry };
    if (bodies && entry.type === "file") {
      const hash = createHash("sha256");
      for await (const chunk of body) hash.update(chunk);
      item.sha256 = hash.digest("hex");
    }
    out.push(item);
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** What the tree under `root` holds, as the reader should list it. */
async function expected(root: string, bodies = true): Promise<Listed[]> {
  const out: Listed[] = [];
  for (const name of (await readdir(root, { recursive: true })).sort()) {
    const path = join(root, name);
    const stats = await lstat(path);
    const base = { name, mode: stats.mode & 0o7777, mtime: Math.floor(stats.mtimeMs / 1000) };
    if (stats.isDirectory()) out.push({ ...base, type: "directory", size: 0 });
    else if (stats.isSymbolicLink()) out.push({ ...base, type: "symlink", size: 0, linkName: await readlink(path) });
    else out.push({ ...base, type: "file", size: stats.size, ...(bodies ? { sha256: sha256(await readFile(path)) } : {}) });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

const tarOf = (args: string[]) => execFileSync("tar", ["-c", "-C", join(dir.path, "tree"), ...args], { maxBuffer: 64 << 20 });

/** A copy of `archive` with the header at `offset` changed by `edit` and its checksum made right again. */
function patched(archive: Uint8Array, offset: number, edit: (header: Uint8Array) => void): Uint8Array {
  const copy = archive.slice();
  const header = copy.subarray(offset, offset + TAR_BLOCK_BYTES);
  edit(header);
  header.fill(0x20, 148, 156);
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.set(new TextEncoder().encode(`${sum.toString(8).padStart(6, "0")}\0 `), 148);
  return copy;
}

async function refusal(stream: ReadableStream<Uint8Array>): Promise<string> {
  const error = await listed(stream).then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(TarError);
  return (error as TarError).message;
}

beforeAll(async () => {
  const tree = join(dir.path, "tree");
  await mkdir(join(tree, "empty-dir"), { recursive: true });
  await mkdir(join(tree, LONG_DIR), { recursive: true });
  await mkdir(join(tree, "sub/deeper"), { recursive: true });
  await writeFile(join(tree, "empty.txt"), "");
  await writeFile(join(tree, "données.txt"), "bonjour\n");
  await writeFile(join(tree, "sub/deeper/run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o750 });
  await writeFile(join(tree, "big.bin"), randomBytes(9 * 1024 * 1024 + 123));
  await writeFile(join(tree, LONG_FILE), randomBytes(1000));
  await symlink("données.txt", join(tree, "link"));
  await symlink(LONG_TARGET, join(tree, "long-link"));
  for (const name of ["empty.txt", "big.bin", "sub/deeper/run.sh"]) await utimes(join(tree, name), MTIME, MTIME);
});

describe("readTar", () => {
  it.each(["gnu", "oldgnu", "pax"])("reads what tar -c --format=%s writes: every type, long names and targets, empty and 9 MiB files", async (format) => {
    const archive = tarOf([`--format=${format}`, "."]);
    const want = await expected(join(dir.path, "tree"));
    // The archive's root `./` is listed as ".".
    const root = { name: ".", type: "directory", mode: (await lstat(join(dir.path, "tree"))).mode & 0o7777, size: 0, mtime: Math.floor((await lstat(join(dir.path, "tree"))).mtimeMs / 1000) };
    expect(await listed(streamOf(archive, [1, 7, 511, 513, 65536, 3 * 1024 * 1024]))).toEqual([root, ...want].sort((a, b) => (a.name < b.name ? -1 : 1)));
  });

  it("reads a ustar name split over prefix and name", async () => {
    const archive = tarOf(["--format=ustar", "--no-recursion", "sub", "sub/deeper", "sub/deeper/run.sh", LONG_DIR]);
    const names = (await listed(streamOf(archive))).map((entry) => entry.name);
    expect(names).toEqual(expect.arrayContaining(["sub/deeper/run.sh", LONG_DIR]));
    expect(LONG_DIR.length).toBeGreaterThan(100);
  });

  it("skips the bodies left unread, and reads a size in GNU's base-256", async () => {
    const archive = tarOf(["big.bin", "empty.txt", "sub"]);
    expect((await listed(streamOf(archive), false)).map((entry) => entry.name)).toEqual(["big.bin", "empty.txt", "sub", "sub/deeper", "sub/deeper/run.sh"]);
    const small = tarOf(["sub/deeper/run.sh"]);
    const base256 = patched(small, 0, (header) => {
      header.fill(0, 124, 136);
      header[124] = 0x80;
      header[135] = 18;
    });
    expect(await listed(streamOf(base256))).toEqual([expect.objectContaining({ name: "sub/deeper/run.sh", size: 18, sha256: sha256(Buffer.from("#!/bin/sh\necho hi\n")) })]);
  });

  it("reads an archive of no entries", async () => {
    expect(await listed(streamOf(execFileSync("tar", ["-c", "-T", "/dev/null"])))).toEqual([]);
  });

  it("refuses an archive cut short: in a file's data, in a header, or before its end-of-archive blocks", async () => {
    const archive = tarOf(["empty.txt", "big.bin"]);
    expect(await refusal(streamOf(archive.subarray(0, 5 * 1024 * 1024)))).toMatch(/^the archive ends inside the data of big\.bin \(9437307 bytes at byte 1024\)$/);
    expect(await refusal(streamOf(archive.subarray(0, 512 + 100)))).toMatch(/ends inside a header at byte 612: it was cut short/);
    const end = 2 * 512 + 9 * 1024 * 1024 + 512;
    expect(await refusal(streamOf(archive.subarray(0, end)))).toBe(`the archive ends at byte ${end} without its end-of-archive blocks: it was cut short`);
    expect(await listed(streamOf(archive.subarray(0, end + 512)))).toHaveLength(2);
  });

  it("refuses what is not a tar archive, and an empty body", async () => {
    expect(await refusal(streamOf(Buffer.from("not a tar archive ".repeat(100))))).toBe("the header at byte 0 has a checksum that is not octal: not a tar archive, or a damaged one");
    const damaged = tarOf(["empty.txt", "sub"]);
    damaged[515] = damaged[515]! ^ 0x01;
    expect(await refusal(streamOf(damaged))).toBe("the header at byte 512 has a wrong checksum: not a tar archive, or a damaged one");
    expect(await refusal(streamOf(new Uint8Array()))).toBe("the archive is empty");
  });

  it("refuses hard links, devices, sparse files, absolute names and names climbing out with ..", async () => {
    const scratch = testTempDir("tar-read-refusals-");
    await writeFile(join(scratch, "a"), "same");
    await link(join(scratch, "a"), join(scratch, "b"));
    expect(await refusal(streamOf(execFileSync("tar", ["-c", "-C", scratch, "a", "b"])))).toBe("b is a hard link (archive with --hard-dereference to store its content instead): only files, directories, symbolic links and FIFOs can be extracted");

    const device = patched(tarOf(["empty.txt"]), 0, (header) => (header[156] = "3".charCodeAt(0)));
    expect(await refusal(streamOf(device))).toMatch(/^empty\.txt is a character device:/);

    await writeFile(join(scratch, "sparse"), "x");
    await truncate(join(scratch, "sparse"), 64 * 1024 * 1024);
    expect(await refusal(streamOf(execFileSync("tar", ["-c", "--sparse", "-C", scratch, "sparse"])))).toMatch(/^sparse is a sparse file:/);
    expect(await refusal(streamOf(execFileSync("tar", ["-c", "--sparse", "--format=pax", "-C", scratch, "sparse"])))).toMatch(/is a sparse file:/);

    const absolute = execFileSync("tar", ["-c", "-P", join(scratch, "a")], { stdio: ["ignore", "pipe", "ignore"] });
    expect(await refusal(streamOf(absolute))).toBe(`${join(scratch, "a")} is an absolute name: names in the archive must be relative`);
    const climbing = patched(tarOf(["empty.txt"]), 0, (header) => header.set(new TextEncoder().encode("sub/../../escape\0"), 0));
    expect(await refusal(streamOf(climbing))).toBe("sub/../../escape climbs out with ..: names in the archive must stay inside it");
  });
});
