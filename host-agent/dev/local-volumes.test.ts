// The local runtime's volumes: each working copy a folder under the instance's own, seen by its shells
// and its files (gpu cp) at the mount's path as /data is (read-only ones read-only in a shell), gone on
// destroy; a path inside one of the machine's own folders is refused at create, saying what would work.
import { existsSync } from "node:fs";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { VolumeMount } from "../../protocol/volumes.ts";
import { NODE_BINARY } from "../../test/support/agent/node-binary.ts";
import { testSpec } from "../../test/support/agent/specs.ts";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { singleFileTar } from "../files/single-file-tar.ts";
import { dataMountWorks } from "./data-root.ts";
import { LocalRuntime } from "./local-runtime.ts";

const ID = "i-localvolumes2345";
const mount = (volume_id: string, path: string, read_only: boolean): VolumeMount => ({ volume_id, path, read_only, version: 0, manifest: null, max_bytes: 10 ** 9 });
const WORK = mount("vol_workworkworkwork", "/workspace", false);
const NESTED = mount("vol_nestednestednest", "/data/datasets", false);
const REFERENCE = mount("vol_referencereferen", "/reference", true);

describe("local runtime volumes", () => {
  const stateDir = useTempDir("local-volumes-");
  let runtime: LocalRuntime;
  afterAll(async () => {
    await runtime?.close();
  });

  it("keeps each working copy under the instance's folder and lists the volumes with it", async () => {
    runtime = new LocalRuntime({ stateDir: stateDir.path, readyDelayMs: 50, pullMs: 4, nodePath: NODE_BINARY });
    await runtime.create(testSpec(ID, { volumes: [WORK, NESTED, REFERENCE] }), () => {});
    const dir = (volumeId: string) => join(stateDir.path, "containers", ID, "volumes", volumeId);
    expect(await runtime.volumes(ID)).toEqual([WORK, NESTED, REFERENCE].map((m) => ({ mount: m, dir: dir(m.volume_id) })));
    for (const { volume_id } of [WORK, NESTED, REFERENCE]) expect(existsSync(dir(volume_id))).toBe(true);
    expect(await runtime.volumeOwner()).toBeNull();
    expect(await runtime.volumes("i-bbbbbbbbbbbbbbbb")).toEqual([]);
  });

  it.skipIf(!dataMountWorks)("a session sees each volume at its path, beside /data and inside it, and cannot write a read-only one", async () => {
    const dir = (volumeId: string) => join(stateDir.path, "containers", ID, "volumes", volumeId);
    await writeFile(join(dir(WORK.volume_id), "work.txt"), "work");
    await writeFile(join(dir(NESTED.volume_id), "nested.txt"), "nested");
    await writeFile(join(dir(REFERENCE.volume_id), "reference.txt"), "reference");
    await runtime.start(ID);
    const script = [
      "cat /workspace/work.txt /data/datasets/nested.txt /reference/reference.txt; echo",
      "echo made > /workspace/made.txt",
      "if echo no > /reference/written.txt 2>/dev/null; then echo written; else echo refused; fi",
    ].join("; ");
    const session = (await runtime.exec(ID, { command: script, env: {}, pty: null }))!;
    let stdout = "";
    session.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    expect(await session.exit).toBe(0);
    expect(stdout).toBe("worknestedreference\nrefused\n");
    expect(await readFile(join(dir(WORK.volume_id), "made.txt"), "utf8")).toBe("made\n");
    expect(existsSync(join(dir(REFERENCE.volume_id), "written.txt"))).toBe(false);
  });

  it("reads and writes a volume's files at its path as it does /data's, the deepest path's folder first, a read-only one read only", async () => {
    const dir = (volumeId: string) => join(stateDir.path, "containers", ID, "volumes", volumeId);
    const source = join(stateDir.path, "upload.txt");
    await writeFile(source, "uploaded");
    expect(await runtime.writeArchive(ID, "/workspace", singleFileTar("uploaded.txt", source, 8, (await stat(source)).mtime))).toBe(true);
    expect(await readFile(join(dir(WORK.volume_id), "uploaded.txt"), "utf8")).toBe("uploaded");
    expect(await runtime.writeArchive(ID, "/data/datasets/", singleFileTar("in-nested.txt", source, 8, new Date()))).toBe(true);
    expect(existsSync(join(dir(NESTED.volume_id), "in-nested.txt"))).toBe(true);
    expect(existsSync(join(stateDir.path, "containers", ID, "data", "datasets", "in-nested.txt"))).toBe(false);
    const text = async (path: string) => {
      let tar = "";
      for await (const chunk of (await runtime.readArchive(ID, path))!) tar += (chunk as Buffer).toString("latin1");
      return tar;
    };
    expect(await text("/workspace/uploaded.txt")).toContain("uploaded.txt");
    // The volume itself is archived under the name the instance knows it by.
    const whole = await text("/workspace");
    expect(whole).toContain("workspace/uploaded.txt");
    expect(whole).not.toContain(WORK.volume_id);
    expect(await runtime.readArchive(ID, "/elsewhere/x")).toBeNull();
    expect(await runtime.writeArchive(ID, "/workspace/uploaded.txt", singleFileTar("x", source, 8, new Date()))).toBe(false);
    await expect(runtime.writeArchive(ID, "/reference", singleFileTar("x.txt", source, 8, new Date()))).rejects.toThrow("/reference is in a volume mounted read-only at /reference");
    expect(existsSync(join(dir(REFERENCE.volume_id), "x.txt"))).toBe(false);
  });

  it("removes the working copies with the instance", async () => {
    await runtime.destroy(ID);
    expect(existsSync(join(stateDir.path, "containers", ID))).toBe(false);
  });

  it.each([["/usr/local/volume", "/usr"], ["/", "/"]])("refuses a volume at %s, inside this machine's own %s", async (path, top) => {
    const id = "i-localrefused2345";
    const create = runtime.create(testSpec(id, { volumes: [mount("vol_workworkworkwork", path, false)] }), () => {});
    await expect(create).rejects.toThrow(`the local runtime cannot mount a volume at ${path}: ${top === "/" ? "/" : top} is this machine's own folder (use a path like /workspace or one under /data)`);
    expect(existsSync(join(stateDir.path, "containers", id))).toBe(false);
  });
});
