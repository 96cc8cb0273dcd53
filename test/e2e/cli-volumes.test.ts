// `gpu volumes` and `vol:` paths of `gpu cp` as a subprocess against the real local stack: a volume
// created, listed and shown; a directory with a file over one 8 MiB chunk copied up with no instance
// and back byte for byte (SHA-256), under its own name and under a new one, the whole volume too,
// a directory too big for one request in several, a file over 256 MiB in resumable parts;
// grown, snapshotted, mounted at launch (a copy into one mounted read-write refused), deleted; each
// refusal the API's message and exit 1.
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { beforeAll, describe, expect, it } from "vitest";
import { uploadDirectory } from "../../cli/files/directory-upload.ts";
import { VOLUME_PART_UNIT } from "../../cli/files/upload-in-parts.ts";
import { ok, type Snapshot, type Volume } from "../../client/index.ts";
import { testTempDir, useTempDir } from "../support/agent/temp-dir.ts";
import { poll, useE2eStack, type Instance } from "./support/e2e-stack.ts";
import { cliEnv, runGpu } from "./support/gpu-cli.ts";
import { checksums } from "./support/checksums.ts";

const stack = useE2eStack();
const home = useTempDir("gpu-volumes-home-");
const treeDir = useTempDir("gpu-volumes-tree-");
let env: NodeJS.ProcessEnv;
let tree: string;

const gpu = (...args: string[]) => runGpu(args, env);
const volume = (id: string) => ok(stack.client.GET("/v1/volumes/{id}", { params: { path: { id } } }));

beforeAll(() => {
  env = cliEnv(home.path, { GPU_API_URL: stack.baseUrl, GPU_API_KEY: stack.key });
  tree = join(treeDir.path, "dataset");
  mkdirSync(join(tree, "nested", "deeper"), { recursive: true });
  // Two chunks and a bit: the second chunk and the tail end in the middle of tar blocks.
  writeFileSync(join(tree, "weights.bin"), randomBytes(9 * 1024 * 1024 + 17));
  writeFileSync(join(tree, "nested", "notes.txt"), "résumé ✓\n");
  writeFileSync(join(tree, "nested", "deeper", "empty"), "");
});

describe("gpu volumes", () => {
  let id: string;

  it("create prints the new volume's id in a pipe; ls and show list it; --json is the API's answer; a name taken or malformed is refused", async () => {
    const created = await gpu("volumes", "create", "datasets", "--size-gb", "5");
    expect(created).toMatchObject({ code: 0, stderr: "" });
    expect(created.stdout).toMatch(/^vol_[a-z2-7]{16}\n$/);
    id = created.stdout.trim();
    expect((await gpu("volumes", "ls")).stdout).toBe(`${id}\tdatasets\t5 GB\t0 B\t0 B\t0\t-\t$0.00\tnever\n`);
    expect(JSON.parse((await gpu("volumes", "ls", "--json")).stdout)).toEqual(await ok(stack.client.GET("/v1/volumes")));
    expect(JSON.parse((await gpu("volumes", "show", "datasets", "--json")).stdout)).toEqual(await volume(id));
    expect((await gpu("volumes", "show", id)).stdout.split("\n")).toEqual(expect.arrayContaining([`id\t${id}`, "name\tdatasets", "size\t5 GB", "used\t0 B (version 0)"]));

    expect(await gpu("volumes", "create", "datasets", "--size-gb", "5")).toMatchObject({ code: 1, stdout: "", stderr: expect.stringMatching(/^error: .*datasets.*\(conflict, HTTP 409\)\n$/) });
    expect(await gpu("volumes", "create", "Data", "--size-gb", "5")).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: name: .*\(invalid, HTTP 400\)\n$/) });
    expect(await gpu("volumes", "create", "other", "--size-gb", "five")).toMatchObject({ code: 2, stderr: expect.stringContaining("must be a whole number") });
  });

  it("cp copies a directory up with no instance and back, every file the same; under a new name too; the whole volume comes down named after it", async () => {
    expect(await gpu("cp", tree, "vol:datasets:/")).toEqual({ code: 0, stdout: `Copied ${tree} -> vol:datasets:/ (9.4 MB)\n`, stderr: "" });
    const after = await volume(id);
    expect(after).toMatchObject({ version: 1, used_bytes: 9 * 1024 * 1024 + 17 + Buffer.byteLength("résumé ✓\n") });
    const back = join(testTempDir("gpu-volumes-back-"), "copy");
    expect(await gpu("cp", "vol:datasets:/dataset", back, "--quiet")).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(checksums(back)).toEqual(checksums(tree));
    expect(Object.keys(checksums(back))).toHaveLength(3);

    // A name the volume does not have yet is the new name; a file under a new name too.
    expect((await gpu("cp", tree, "vol:datasets:/train")).code).toBe(0);
    expect(await gpu("cp", join(tree, "weights.bin"), "vol:datasets:/train/model.bin")).toMatchObject({ code: 0, stderr: "" });
    const whole = join(testTempDir("gpu-volumes-whole-"), "everything");
    expect((await gpu("cp", "vol:datasets:/", whole)).code).toBe(0);
    expect(checksums(join(whole, "dataset"))).toEqual(checksums(tree));
    expect(checksums(join(whole, "train"))).toEqual({ ...checksums(tree), "model.bin": checksums(tree)["weights.bin"] });
    // Into a directory that exists, under the volume's name as written.
    const into = testTempDir("gpu-volumes-into-");
    expect((await gpu("cp", "vol:datasets:/", into)).code).toBe(0);
    expect(readdirSync(join(into, "datasets")).sort()).toEqual(["dataset", "train"]);
    expect((await volume(id)).version).toBe(3);

    // A directory too big for one tar, to a volume: its big file in parts (one, of whole 8 MiB chunks), renamed too.
    const root = testTempDir("gpu-volumes-bigdir-");
    mkdirSync(join(root, "corpus", "shards"), { recursive: true });
    for (let i = 0; i < 3; i++) writeFileSync(join(root, "corpus", "shards", `shard-${i}.txt`), randomBytes(40_000));
    writeFileSync(join(root, "corpus", "weights.bin"), randomBytes(300_000));
    const transfer = { counter: () => new PassThrough(), bytes: 0, set: () => undefined, skipped: () => undefined };
    await uploadDirectory({ filesUrl: `${stack.baseUrl}/v1/volumes/${id}/files`, apiKey: stack.key, to: "/", parent: root, name: "corpus", as: "corpus-v2", partBytes: 100_000, partUnit: VOLUME_PART_UNIT, fifos: false, transfer });
    expect((await volume(id)).version).toBe(6);
    expect((await gpu("cp", "vol:datasets:/corpus-v2", join(root, "back"))).code).toBe(0);
    expect(checksums(join(root, "back"))).toEqual(checksums(join(root, "corpus")));

    expect(await gpu("cp", tree, "vol:no-such-volume:/")).toMatchObject({ code: 1, stdout: "", stderr: expect.stringMatching(/^error: .*no-such-volume.*\(not_found, HTTP 404\)\n$/) });
    expect(await gpu("cp", "vol:datasets:/nothing-here", join(testTempDir("gpu-volumes-never-"), "x"))).toMatchObject({ code: 1, stderr: expect.stringContaining("(not_found, HTTP 404)") });
    expect(await gpu("cp", tree, "vol:datasets:train")).toMatchObject({ code: 2, stderr: "error: vol:datasets:train: the volume's path must be absolute (e.g. vol:datasets:/data)\n" });
  });

  it("grow makes it bigger and never smaller; snapshot keeps a version, snapshots lists it; save needs a running instance", async () => {
    expect(await gpu("volumes", "grow", "datasets", "--size-gb", "8")).toEqual({ code: 0, stdout: "datasets is 8 GB\n", stderr: "" });
    expect(await gpu("volumes", "grow", "datasets", "--size-gb", "6")).toMatchObject({ code: 1, stderr: expect.stringMatching(/^error: size_gb: .*\(invalid, HTTP 400\)\n$/) });
    expect((await volume(id)).size_gb).toBe(8);

    const taken = await gpu("volumes", "snapshot", "datasets", "--name", "before-training");
    expect(taken).toMatchObject({ code: 0, stderr: "" });
    const snapshotId = taken.stdout.trim();
    expect(snapshotId).toMatch(/^snap_[a-z2-7]{16}$/);
    const listed = (await gpu("volumes", "snapshots", "datasets")).stdout.trim().split("\n").map((line) => line.split("\t"));
    expect(listed).toEqual([[snapshotId, "before-training", "6", "9.9 MB", expect.any(String)]]);
    const json = JSON.parse((await gpu("volumes", "snapshots", "datasets", "--json")).stdout) as { items: Snapshot[] };
    expect(json).toEqual(await ok(stack.client.GET("/v1/volumes/{id}/snapshots", { params: { path: { id } } })));

    expect(await gpu("volumes", "save", "datasets")).toMatchObject({ code: 1, stderr: expect.stringContaining("(not_running, HTTP 409)") });
  });

  it("cp sends a file over 256 MiB into a volume in resumable parts, with no instance, and brings it back the same", async () => {
    const dir = testTempDir("gpu-volumes-big-");
    const big = join(dir, "model.bin");
    const size = 256 * 1024 * 1024 + 8 * 1024 * 1024 + 3;
    writeFileSync(big, randomBytes(size));
    const before = await volume(id);
    expect(await gpu("cp", big, "vol:datasets:/models/model.bin")).toEqual({ code: 0, stdout: `Copied ${big} -> vol:datasets:/models/model.bin (276.8 MB)\n`, stderr: "" });
    expect(await volume(id)).toMatchObject({ version: before.version + 1, used_bytes: before.used_bytes + size });
    const back = join(dir, "back.bin");
    expect((await gpu("cp", "vol:datasets:/models/model.bin", back)).code).toBe(0);
    expect(checksums(dir)["back.bin"]).toBe(checksums(dir)["model.bin"]);
  }, 120_000);

  it("launch --volume mounts it, show lists it, rm is refused while it is attached and deletes it once the instance is gone", async () => {
    const launched = await gpu("launch", "--gpu-model", "rtx4090", "--template", "vllm", "--model", "qwen2.5-0.5b-instruct", "--volume", "datasets:/data/sets:ro", "--json");
    expect(launched).toMatchObject({ code: 0, stderr: "" });
    const instance = JSON.parse(launched.stdout) as Instance;
    expect(instance.volumes).toEqual([{ volume_id: id, path: "/data/sets", read_only: true }]);
    expect((await gpu("show", instance.id)).stdout.split("\n")).toContain(`volume /data/sets\t${id} (read-only)`);
    expect((await gpu("volumes", "ls")).stdout).toContain(`\t${instance.id}:/data/sets (ro)\t`);
    expect(await gpu("launch", "--gpu-model", "rtx4090", "--template", "vllm", "--model", "qwen2.5-0.5b-instruct", "--volume", "datasets:/data/x:rw")).toMatchObject({
      code: 2, stderr: expect.stringContaining("takes one path and then only :ro"),
    });

    // Read-write in another instance: only that one writes it, and gpu cp says so before sending anything.
    const writer = JSON.parse((await gpu("launch", "--gpu-model", "rtx4090", "--template", "vllm", "--model", "qwen2.5-0.5b-instruct", "--volume", "datasets", "--json")).stdout) as Instance;
    expect(writer.volumes).toEqual([{ volume_id: id, path: "/workspace", read_only: false }]);
    expect(await gpu("cp", tree, "vol:datasets:/")).toEqual({
      code: 1, stdout: "", stderr: `error: volume datasets is attached read-write to instance ${writer.id}, which alone writes it until it is destroyed: copy into ${writer.id}:/workspace instead\n`,
    });
    expect((await gpu("rm", writer.id, "--yes")).code).toBe(0);

    expect(await gpu("volumes", "rm", "datasets")).toMatchObject({ code: 1, stderr: "error: deleting datasets deletes its data: pass --yes to confirm\n" });
    expect(await gpu("volumes", "rm", "datasets", "--yes")).toMatchObject({ code: 1, stderr: expect.stringMatching(new RegExp(`^error: .*${instance.id}.*\\(conflict, HTTP 409\\)\\n$`)) });
    expect((await gpu("rm", instance.id, "--yes")).code).toBe(0);
    await poll(() => volume(id), (v: Volume) => v.attachments.length === 0);
    expect(await gpu("volumes", "rm", "datasets", "--yes")).toEqual({ code: 0, stdout: "Deleted volume datasets\n", stderr: "" });
    expect((await gpu("volumes", "ls")).stdout).toBe("");
    expect(await gpu("volumes", "show", id)).toMatchObject({ code: 1, stderr: expect.stringContaining("(not_found, HTTP 404)") });
  }, 60_000);
});
