// Staged uploads on a real folder: parts appended only at the staged size, one part at a time, never
// past the room given, which the instance's uploads share (and nothing kept then), a part cut short
// keeping what arrived, a write the host's disk refuses, and the removals (an instance destroyed, an
// upload untouched for an hour, a written file, whose size is kept for an hour). The host's room: a
// cap on what all instances' uploads stage together, counted again by an agent restarted, and the
// disk's free space, asked of the file system itself.
import { mkdir, readdir, readFile, statfs, symlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { UPLOAD_IDLE_MS, UploadStaging } from "./upload-staging.ts";

const dir = useTempDir("upload-staging-");
const key = (uploadId: string, instanceId = "i-aaaaaaaaaaaaaaaa") => ({ instanceId, uploadId });
const bytes = (text: string) => Readable.from([Buffer.from(text)]);

describe("UploadStaging", () => {
  it("appends parts at the staged size and refuses any other offset with the size", async () => {
    const staging = new UploadStaging(join(dir.path, "offsets"));
    const upload = key("offsets-upload-0001");
    expect(await staging.append(upload, 0, bytes("hello "), 100)).toEqual({ kind: "staged", size: 6 });
    expect(await staging.append(upload, 3, bytes("xx"), 100)).toEqual({ kind: "wrong_offset", size: 6 });
    expect(await staging.append(upload, 7, bytes("xx"), 100)).toEqual({ kind: "wrong_offset", size: 6 });
    expect(await staging.append(upload, 6, bytes("world"), 100)).toEqual({ kind: "staged", size: 11 });
    const staged = (await staging.take(upload))!;
    expect(staged.size).toBe(11);
    expect(await readFile(staged.file, "utf8")).toBe("hello world");
    staged.release();
    await staging.written(upload, 11);
    expect(await staging.size(upload)).toBe(0);
  });

  it("answers every part of a written upload with the file's size, counts no room for it, and forgets it after an hour", async () => {
    let now = Date.now();
    const staging = new UploadStaging(join(dir.path, "written"), { now: () => now });
    const upload = key("written-upload-0001");
    expect(await staging.append(upload, 0, bytes("0123456789"), 20)).toEqual({ kind: "staged", size: 10 });
    await staging.written(upload, 10);
    expect(await staging.size(upload)).toBe(0);
    for (const offset of [0, 4, 10]) expect(await staging.append(upload, offset, bytes("more"), 20)).toEqual({ kind: "written", size: 10 });
    // The marker is not staged bytes: the instance's other uploads have the whole room.
    expect(await staging.append(key("next-upload-000001"), 0, bytes("x".repeat(20)), 20)).toEqual({ kind: "staged", size: 20 });
    now += UPLOAD_IDLE_MS + 1000;
    expect(await staging.sweep()).toBe(2);
    expect(await staging.append(upload, 0, bytes("again"), 20)).toEqual({ kind: "staged", size: 5 });
  });

  it("takes one part of an upload at a time: a second is busy until the first is answered", async () => {
    const staging = new UploadStaging(join(dir.path, "busy"));
    const upload = key("busy-upload-000001");
    const body = new PassThrough();
    const first = staging.append(upload, 0, body, 100);
    expect(await staging.append(upload, 0, bytes("other"), 100)).toEqual({ kind: "busy" });
    expect(await staging.take(upload)).toBeNull();
    body.end("first");
    expect(await first).toEqual({ kind: "staged", size: 5 });
    expect(await staging.append(upload, 5, bytes("!"), 100)).toEqual({ kind: "staged", size: 6 });
  });

  it("refuses a part that would stage more than the room given, and keeps nothing of the upload", async () => {
    const staging = new UploadStaging(join(dir.path, "too-large"));
    const upload = key("too-large-upload-01");
    expect(await staging.append(upload, 0, bytes("12345678"), 10)).toEqual({ kind: "staged", size: 8 });
    const body = Readable.from([Buffer.from("abc")]);
    expect(await staging.append(upload, 8, body, 10)).toEqual({ kind: "too_large", maxBytes: 10 });
    expect(await staging.size(upload)).toBe(0);
  });

  it("counts the room across the instance's uploads: another upload's staged bytes leave less for this one", async () => {
    const staging = new UploadStaging(join(dir.path, "shared-room"));
    expect(await staging.append(key("first-of-two-upload"), 0, bytes("123456"), 10)).toEqual({ kind: "staged", size: 6 });
    expect(await staging.append(key("second-of-two-upld"), 0, bytes("12345"), 10)).toEqual({ kind: "too_large", maxBytes: 10 });
    expect(await staging.append(key("second-of-two-upld"), 0, bytes("1234"), 10)).toEqual({ kind: "staged", size: 4 });
    expect(await staging.append(key("other-instance-upld", "i-cccccccccccccccc"), 0, bytes("123456789"), 10)).toEqual({ kind: "staged", size: 9 });
  });

  it("holds all instances' uploads within the host's cap: a part past it keeps what arrived, and room comes back as uploads go", async () => {
    const root = join(dir.path, "host-cap");
    const staging = new UploadStaging(root, { hostBytes: 10 });
    const first = key("host-cap-upload-0001", "i-aaaaaaaaaaaaaaaa");
    const second = key("host-cap-upload-0002", "i-bbbbbbbbbbbbbbbb");
    expect(await staging.append(first, 0, bytes("123456"), 100)).toEqual({ kind: "staged", size: 6 });
    const part = Readable.from([Buffer.from("abc"), Buffer.from("defg")]);
    expect(await staging.append(second, 0, part, 100)).toEqual({ kind: "no_room", size: 3, reason: "its uploads stage 9 bytes together, and it takes at most 10" });
    expect(await staging.size(second)).toBe(3);
    expect(await staging.append(second, 3, bytes("d"), 100)).toEqual({ kind: "staged", size: 4 });
    expect(await staging.append(second, 4, bytes("e"), 100)).toMatchObject({ kind: "no_room", size: 4 });
    // An agent restarted counts what its folder holds.
    expect(await new UploadStaging(root, { hostBytes: 10 }).append(second, 4, bytes("e"), 100)).toMatchObject({ kind: "no_room", size: 4 });
    await staging.written(first, 6);
    expect(await staging.append(second, 4, bytes("efghij"), 100)).toEqual({ kind: "staged", size: 10 });
    await staging.removeInstance(second.instanceId);
    expect(await staging.append(key("host-cap-upload-0003"), 0, bytes("0123456789"), 100)).toEqual({ kind: "staged", size: 10 });
  });

  it("an agent restarted takes what it removes off what its folder held, once", async () => {
    const root = join(dir.path, "restart-count");
    const before = new UploadStaging(root);
    await before.append(key("restart-count-upld-1", "i-aaaaaaaaaaaaaaaa"), 0, bytes("123456"), 100);
    await before.append(key("restart-count-upld-2", "i-bbbbbbbbbbbbbbbb"), 0, bytes("1234"), 100);
    const staging = new UploadStaging(root, { hostBytes: 10 });
    await staging.removeInstance("i-aaaaaaaaaaaaaaaa");
    expect(await staging.append(key("restart-count-upld-3"), 0, bytes("1234567"), 100)).toMatchObject({ kind: "no_room", size: 0 });
    expect(await staging.append(key("restart-count-upld-3"), 0, bytes("123456"), 100)).toEqual({ kind: "staged", size: 6 });
  });

  it("refuses a part while the disk has less free than the host keeps, reading nothing of it", async () => {
    const root = join(dir.path, "free-space");
    const disk = await statfs(dir.path);
    const staging = new UploadStaging(root, { minFreeBytes: disk.bavail * disk.bsize + 2 ** 30 });
    const body = new PassThrough();
    body.end("anything");
    expect(await staging.append(key("free-space-upload-1"), 0, body, 100)).toEqual({
      kind: "no_room", size: 0, reason: expect.stringMatching(/^its disk has \d+ bytes free, and it keeps \d+ free$/),
    });
    expect(body.readableLength).toBe(8);
    expect(await staging.size(key("free-space-upload-1"))).toBe(0);
  });

  it("keeps what arrived of a part whose sender went away, which the next part resumes from", async () => {
    const staging = new UploadStaging(join(dir.path, "cut-short"));
    const upload = key("cut-short-upload-01");
    const body = new PassThrough();
    const part = staging.append(upload, 0, body, 100);
    body.write("partial", () => setTimeout(() => body.destroy(), 20));
    expect(await part).toEqual({ kind: "cut_short", size: 7 });
    expect(await staging.append(upload, 0, bytes("again"), 100)).toEqual({ kind: "wrong_offset", size: 7 });
    expect(await staging.append(upload, 7, bytes(" rest"), 100)).toEqual({ kind: "staged", size: 12 });
  });

  it("lets go of an upload whose part's sender went away before the part was begun", async () => {
    const staging = new UploadStaging(join(dir.path, "gone-early"));
    const upload = key("gone-early-upload-1");
    const body = new PassThrough();
    body.destroy();
    expect(await staging.append(upload, 0, body, 100)).toEqual({ kind: "cut_short", size: 0 });
    expect(await staging.append(upload, 0, bytes("next"), 100)).toEqual({ kind: "staged", size: 4 });
  });

  it("says why a part could not be written on the host (its disk full)", async () => {
    const staging = new UploadStaging(join(dir.path, "full"));
    const upload = key("disk-full-upload-01");
    await mkdir(join(dir.path, "full", upload.instanceId), { recursive: true });
    // /dev/full answers every write with ENOSPC, as a full disk does.
    await symlink("/dev/full", join(dir.path, "full", upload.instanceId, upload.uploadId));
    expect(await staging.append(upload, 0, bytes("anything"), 100)).toEqual({ kind: "failed", reason: expect.stringContaining("ENOSPC") });
  });

  it("removes an instance's uploads when it is destroyed, and any upload untouched for an hour", async () => {
    let now = Date.now();
    const staging = new UploadStaging(join(dir.path, "sweep"), { now: () => now });
    const gone = key("destroyed-upload-01", "i-bbbbbbbbbbbbbbbb");
    const idle = key("idle-upload-000001");
    const fresh = key("fresh-upload-00001");
    for (const upload of [gone, idle, fresh]) await staging.append(upload, 0, bytes("data"), 100);
    await staging.removeInstance(gone.instanceId);
    expect(await staging.size(gone)).toBe(0);
    const hourAgo = new Date(now - UPLOAD_IDLE_MS - 1000);
    await utimes(join(dir.path, "sweep", idle.instanceId, idle.uploadId), hourAgo, hourAgo);
    expect(await staging.sweep()).toBe(1);
    expect(await readdir(join(dir.path, "sweep", fresh.instanceId))).toEqual([fresh.uploadId]);
    now += UPLOAD_IDLE_MS + 1000;
    expect(await staging.sweep()).toBe(1);
    expect(await staging.size(fresh)).toBe(0);
  });
});
