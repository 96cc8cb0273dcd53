// The real agent (local runtime) and its instances' volumes, against a fake MachineDO whose volume
// answers come from the Worker's own signing and R2's S3 API (test/support/agent/volume-platform.ts):
// restored before the container starts, saved on the save command, on stop and destroy once the
// processes ended, and every AGENT_VOLUME_SAVE_MINUTES while running; only what changed is sent; a
// failed save is reported and the stop still happens; a volume that cannot be restored fails the create.
import { existsSync } from "node:fs";
import { readFile, truncate, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentMessage, ContainerReport } from "../protocol/messages.ts";
import type { VolumeMount } from "../protocol/volumes.ts";
import { PROTOCOL_VERSION } from "../protocol/version.ts";
import { startAgentChild, type AgentChild } from "../test/support/agent/agent-child.ts";
import { FakeMachineDo } from "../test/support/agent/fake-machine-do.ts";
import { testSpec } from "../test/support/agent/specs.ts";
import { useTempDir } from "../test/support/agent/temp-dir.ts";
import { startVolumePlatform, type VolumePlatform } from "../test/support/agent/volume-platform.ts";
import { waitUntil } from "../test/support/agent/wait-until.ts";

const ID = "i-volumeagent2345a";
const BROKEN = "i-volumebroken234a";
const WORK = "vol_workworkworkwork";
const REFERENCE = "vol_referencereferen";
/** 1.2 s: saves of their own come often enough to be seen, and the commands' saves take turns with them. */
const SAVE_MINUTES = "0.02";

const stateDir = useTempDir("agent-volumes-");
let platform: VolumePlatform;
let fake: FakeMachineDo;
let agent: AgentChild;
let mounts: VolumeMount[];
let nextCommand = 1;

const workCopy = () => join(stateDir.path, "containers", ID, "volumes", WORK);

beforeAll(async () => {
  platform = await startVolumePlatform();
  fake = new FakeMachineDo("volume-agent-secret");
  platform.serve(fake);
  const server = await fake.listen();
  agent = startAgentChild(["--server", server, "--token", "volume-agent-secret", "--runtime", "local", "--gpus", "rtx4090:2", "--state-dir", stateDir.path], {
    DEV_READY_DELAY_MS: "100", DEV_PULL_MS: "40", AGENT_VOLUME_SAVE_MINUTES: SAVE_MINUTES,
  });
  await fake.waitFor("hello");
  fake.send({ type: "welcome", protocol: PROTOCOL_VERSION, machine_id: 9, heartbeat_ms: 1_000 });
  mounts = [
    await platform.storeVersion(WORK, { "notes.txt": "first notes", "weights.bin": "w".repeat(1000) }, { path: "/workspace", read_only: false }),
    await platform.storeVersion(REFERENCE, { "reference.txt": "read me" }, { path: "/reference", read_only: true }),
  ];
});
afterAll(async () => {
  await agent?.stop();
  await fake?.close();
  await platform?.close();
});

/** Sends a command and waits for its ack; the ack. */
async function command(op: "create" | "start" | "stop" | "destroy" | "save", instanceId = ID, volumes = mounts) {
  const commandId = `c-${nextCommand++}`;
  const from = fake.received.length;
  fake.send({ type: "command", command_id: commandId, op, instance_id: instanceId, spec: testSpec(instanceId, { gpu_indices: [], volumes }) });
  return fake.waitFor("ack", (m) => m.command_id === commandId, from, 30_000);
}

const reports = (instanceId: string) => fake.messages().filter((m): m is Extract<AgentMessage, { type: "container" }> => m.type === "container" && m.instance_id === instanceId);
const lastState = (instanceId: string): ContainerReport["state"] | undefined => reports(instanceId).at(-1)?.state;
const version = (volumeId: string) => platform.versions.get(volumeId)?.version ?? 0;

// One agent through the whole file: the tests run in order, as one instance's life.
describe("an instance's volumes on the agent", () => {
  it("restores each volume before the container starts, the read-only one too", async () => {
    expect(await command("create")).toMatchObject({ ok: true });
    expect(lastState(ID)).toBe("running");
    expect(await readFile(join(workCopy(), "notes.txt"), "utf8")).toBe("first notes");
    expect(await readFile(join(stateDir.path, "containers", ID, "volumes", REFERENCE, "reference.txt"), "utf8")).toBe("read me");
    // Every URL it used was asked before the container was reported running, and only to read.
    const messages = fake.messages();
    const running = messages.findIndex((m) => m.type === "container" && m.instance_id === ID && m.state === "running");
    const signs = messages.flatMap((m, i) => (m.type === "volume_sign" ? [{ i, method: m.method, volume: m.volume_id, instance: m.instance_id }] : []));
    expect(new Set(signs.map((s) => s.volume))).toEqual(new Set([WORK, REFERENCE]));
    expect(signs.every((s) => s.i < running && s.method === "GET" && s.instance === ID)).toBe(true);
  });

  it("saves the read-write volume on the save command, sending only the changed chunk, and commits the next version", async () => {
    const from = platform.messages.length;
    await writeFile(join(workCopy(), "notes.txt"), "second notes");
    expect(await command("save")).toMatchObject({ ok: true, error: "" });
    expect(version(WORK)).toBe(2);
    expect(await platform.readVersion(WORK)).toEqual({ "notes.txt": "second notes", "weights.bin": "w".repeat(1000) });
    const sent = platform.messages.slice(from);
    const puts = sent.flatMap((m) => (m.type === "volume_sign" && m.method === "PUT" ? m.names : []));
    // One chunk (the notes' new content) and the manifest; never the unchanged weights, never the read-only volume.
    expect(puts.filter((name) => name.startsWith("chunks/"))).toHaveLength(1);
    expect(puts.filter((name) => name.startsWith("manifests/"))).toHaveLength(1);
    expect(sent.every((m) => m.volume_id === WORK)).toBe(true);
    expect(version(REFERENCE)).toBe(1);
  });

  it("saves the changes of a running instance by itself every AGENT_VOLUME_SAVE_MINUTES, and an unchanged volume sends nothing", async () => {
    await writeFile(join(workCopy(), "notes.txt"), "third notes");
    await waitUntil(() => (version(WORK) === 3 ? true : undefined), "a save of its own", 20_000);
    expect((await platform.readVersion(WORK))["notes.txt"]).toBe("third notes");
    const from = platform.messages.length;
    await agent.waitForLog("volume saved", (line) => line.version === 3);
    // Two more rounds and a save command on an unchanged copy: nothing signed, nothing committed.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await command("save")).toMatchObject({ ok: true });
    expect(platform.messages.slice(from)).toEqual([]);
    expect(version(WORK)).toBe(3);
  });

  it("a create again (as after an error) keeps a working copy past its spec's version: it holds the instance's own saves", async () => {
    expect(await command("create")).toMatchObject({ ok: true });
    // Version 3's, not the spec's version 1 ("first notes").
    expect(await readFile(join(workCopy(), "notes.txt"), "utf8")).toBe("third notes");
    expect(version(WORK)).toBe(3);
  });

  it("a save that cannot be made is reported, the version stays, and the stop still happens", async () => {
    // Over the volume's max_bytes (a sparse file: nothing is written to disk).
    await truncate(join(workCopy(), "notes.txt"), 0);
    await writeFile(join(workCopy(), "huge.bin"), "");
    await truncate(join(workCopy(), "huge.bin"), 2 * 10 ** 9);
    const from = platform.messages.length;
    expect(await command("stop")).toMatchObject({ ok: true });
    expect(lastState(ID)).toBe("stopped");
    const failed = platform.messages.slice(from).find((m) => m.type === "volume_save_failed");
    expect(failed).toEqual({ type: "volume_save_failed", instance_id: ID, volume_id: WORK, reason: expect.stringMatching(/2000000000|2\.0 GB|over/) });
    expect(version(WORK)).toBe(3);
    await unlink(join(workCopy(), "huge.bin"));
  });

  it("a start brings a read-only volume to the version its command names; stop saves once the processes ended, and destroy a last time before the working copies go", async () => {
    await writeFile(join(workCopy(), "notes.txt"), "notes of a stop");
    // The start's command names the read-only volume's latest version: the instance sees it from this start.
    const latest = await platform.storeVersion(REFERENCE, { "reference.txt": "read me again" }, { path: "/reference", read_only: true });
    expect(await command("start", ID, [mounts[0]!, latest])).toMatchObject({ ok: true });
    expect(await readFile(join(stateDir.path, "containers", ID, "volumes", REFERENCE, "reference.txt"), "utf8")).toBe("read me again");
    expect(await command("stop")).toMatchObject({ ok: true });
    expect(version(WORK)).toBe(4);
    expect((await platform.readVersion(WORK))["notes.txt"]).toBe("notes of a stop");
    await writeFile(join(workCopy(), "notes.txt"), "last words");
    expect(await command("destroy")).toMatchObject({ ok: true });
    expect(lastState(ID)).toBe("destroyed");
    expect(version(WORK)).toBe(5);
    expect(await platform.readVersion(WORK)).toEqual({ "notes.txt": "last words", "weights.bin": "w".repeat(1000) });
    expect(existsSync(join(stateDir.path, "containers", ID))).toBe(false);
  });

  it("a volume that cannot be restored fails the create, naming it and its path", async () => {
    const missing: VolumeMount = { volume_id: WORK, path: "/workspace", read_only: false, version: 9, manifest: "manifests/nosuchmanifest000000.json", max_bytes: 10 ** 9 };
    const ack = await command("create", BROKEN, [missing]);
    expect(ack.ok).toBe(false);
    expect(ack.error).toMatch(new RegExp(`^create failed: volume ${WORK} could not be restored at /workspace: .*404`));
    expect(reports(BROKEN).at(-1)).toMatchObject({ state: "error", message: ack.error });
    expect(reports(BROKEN).some((r) => r.state === "running")).toBe(false);
    expect(await command("destroy", BROKEN, [missing])).toMatchObject({ ok: true });
  });
});
