// The real agent (local runtime) tells its MachineDO which volume versions its cache holds whole: after
// the welcome of each connection, after a restore and after a save, and still after the instance that
// used the volume is gone. And a command's sizes stand from then on: a volume grown while the instance
// was stopped, or while it runs, is saved up to its new size, not refused at the size it had at the launch.
import { truncate } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentMessage } from "../protocol/messages.ts";
import type { VolumeMount } from "../protocol/volumes.ts";
import { PROTOCOL_VERSION } from "../protocol/version.ts";
import { startAgentChild, type AgentChild } from "../test/support/agent/agent-child.ts";
import { FakeMachineDo } from "../test/support/agent/fake-machine-do.ts";
import { testSpec } from "../test/support/agent/specs.ts";
import { useTempDir } from "../test/support/agent/temp-dir.ts";
import { startVolumePlatform, type VolumePlatform } from "../test/support/agent/volume-platform.ts";

const ID = "i-volumecache2345a";
const WORK = "vol_cachecachecachec";
const TOKEN = "volume-cache-secret";

type VolumeCache = Extract<AgentMessage, { type: "volume_cache" }>;

const stateDir = useTempDir("agent-volume-cache-");
let platform: VolumePlatform;
let fake: FakeMachineDo;
let agent: AgentChild;
let launched: VolumeMount;
let nextCommand = 1;

beforeAll(async () => {
  platform = await startVolumePlatform();
  fake = new FakeMachineDo(TOKEN);
  platform.serve(fake);
  const server = await fake.listen();
  agent = startAgentChild(["--server", server, "--token", TOKEN, "--runtime", "local", "--gpus", "rtx4090:1", "--state-dir", stateDir.path], {
    DEV_READY_DELAY_MS: "100", DEV_PULL_MS: "40",
  });
  // A 1 MB volume at the launch.
  launched = await platform.storeVersion(WORK, { "notes.txt": "first" }, { path: "/workspace", read_only: false, max_bytes: 10 ** 6 });
});
afterAll(async () => {
  await agent?.stop();
  await fake?.close();
  await platform?.close();
});

/** Says welcome to the connection whose hello comes after index `from` of `received`; the index after which its messages come. */
async function welcome(from: number): Promise<number> {
  await fake.waitFor("hello", () => true, from);
  const after = fake.received.length;
  fake.send({ type: "welcome", protocol: PROTOCOL_VERSION, machine_id: 5, heartbeat_ms: 1_000 });
  return after;
}

async function command(op: "create" | "start" | "stop" | "destroy" | "save", mount = launched) {
  const commandId = `c-${nextCommand++}`;
  const from = fake.received.length;
  fake.send({ type: "command", command_id: commandId, op, instance_id: ID, spec: testSpec(ID, { gpu_indices: [], volumes: [mount] }) });
  return fake.waitFor("ack", (m) => m.command_id === commandId, from, 30_000);
}

/** The next volume_cache from index `from` on. */
const nextCache = (from: number) => fake.waitFor("volume_cache", () => true, from, 20_000) as Promise<VolumeCache>;

describe("the volume versions a host holds", () => {
  it("are reported after the welcome (none yet), after a restore, and after a save", async () => {
    expect(await nextCache(await welcome(0))).toEqual({ type: "volume_cache", volumes: [] });

    let from = fake.received.length;
    expect(await command("create")).toMatchObject({ ok: true });
    expect(await nextCache(from)).toEqual({ type: "volume_cache", volumes: [{ volume_id: WORK, version: 1 }] });

    from = fake.received.length;
    await truncate(join(stateDir.path, "containers", ID, "volumes", WORK, "notes.txt"), 100);
    expect(await command("save")).toMatchObject({ ok: true });
    expect(platform.versions.get(WORK)?.version).toBe(2);
    expect(await nextCache(from)).toEqual({ type: "volume_cache", volumes: [{ volume_id: WORK, version: 2 }] });
  });

  it("a start's size stands for the saves after it: content past the launch's size and within the grown one is saved", async () => {
    expect(await command("stop")).toMatchObject({ ok: true });
    // 2 MB of zeros: over the launch's 1 MB, within the 3 MB the volume has grown to.
    await truncate(join(stateDir.path, "containers", ID, "volumes", WORK, "notes.txt"), 2 * 10 ** 6);
    const grown = { ...launched, version: 2, manifest: platform.versions.get(WORK)!.manifest, max_bytes: 3 * 10 ** 6 };
    expect(await command("start", grown)).toMatchObject({ ok: true });
    const from = platform.messages.length;
    // The save command's own spec still says the launch's size: the start's is the one that stands.
    expect(await command("save")).toMatchObject({ ok: true });
    expect(platform.messages.slice(from).filter((m) => m.type === "volume_save_failed")).toEqual([]);
    expect(platform.versions.get(WORK)?.version).toBe(3);
  });

  it("a save command's larger size stands too (a volume grown while the instance runs); a smaller one is an older command's", async () => {
    // 4 MB: over the 3 MB of the start, within the 5 MB the volume has grown to since.
    await truncate(join(stateDir.path, "containers", ID, "volumes", WORK, "notes.txt"), 4 * 10 ** 6);
    const grown = { ...launched, max_bytes: 5 * 10 ** 6 };
    let from = platform.messages.length;
    expect(await command("save", grown)).toMatchObject({ ok: true });
    expect(platform.messages.slice(from).filter((m) => m.type === "volume_save_failed")).toEqual([]);
    expect(platform.versions.get(WORK)?.version).toBe(4);
    await truncate(join(stateDir.path, "containers", ID, "volumes", WORK, "notes.txt"), 4.5 * 10 ** 6);
    from = platform.messages.length;
    expect(await command("save")).toMatchObject({ ok: true });
    expect(platform.messages.slice(from).filter((m) => m.type === "volume_save_failed")).toEqual([]);
    expect(platform.versions.get(WORK)?.version).toBe(5);
  });

  it("are still reported by the next connection once the instance is destroyed: its chunks stay in the cache", async () => {
    expect(await command("destroy")).toMatchObject({ ok: true });
    const from = fake.received.length;
    fake.dropConnection();
    expect(await nextCache(await welcome(from))).toEqual({ type: "volume_cache", volumes: [{ volume_id: WORK, version: 5 }] });
  });
});
