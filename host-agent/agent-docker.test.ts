// The real agent process on a real engine (podman, as root, like CI), against a fake MachineDO: what
// it finds out about its host at start and says in its hello. This engine cannot enforce disk_gb
// (overlay on extfs): by default the host takes no instances, degraded with the reason; with
// --unenforced-disk accept it takes them, each saying its limit is not enforced. Sets the tenant
// firewall (firewall.sh), which the agent also checks and puts back when it goes (a case deletes it),
// and holds the machine-wide firewall test lock.
import { execFile } from "node:child_process";
import { mkdtemp, rm, statfs } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Docker from "dockerode";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "../protocol/version.ts";
import { startAgentChild } from "../test/support/agent/agent-child.ts";
import { FakeMachineDo } from "../test/support/agent/fake-machine-do.ts";
import { lockFirewall } from "../test/support/agent/firewall-lock.ts";
import { randomInstanceId, testSpec } from "../test/support/agent/specs.ts";
import { probeDiskLimits, type DiskLimits } from "./runtime/docker-disk-limits.ts";
import { DEFAULT_NETWORK_POOL } from "./runtime/subnet-pool.ts";

const TEST_IMAGE = "localhost/gpu-rental-busybox:latest";
const FIREWALL_SCRIPT = new URL("../deploy/host-agent/firewall.sh", import.meta.url).pathname;
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function agentOnEngine(extraArgs: string[]) {
  const fake = new FakeMachineDo("secret");
  const server = await fake.listen();
  const stateDir = await mkdtemp(join(tmpdir(), "agent-docker-"));
  // Its own containers only: other test files' containers on the shared engine are not its to stop or reconcile.
  const agent = startAgentChild(["--server", server, "--token", "secret", "--runtime", "docker", "--gpus", "rtx4090:2", "--state-dir", stateDir, ...extraArgs],
    { DEV_ENGINE_SCOPE: `agent-docker-${process.pid}` });
  cleanups.push(() => rm(stateDir, { recursive: true, force: true }), () => fake.close(), () => agent.stop());
  const hello = await fake.waitFor("hello", () => true, 0, 30_000);
  fake.send({ type: "welcome", protocol: PROTOCOL_VERSION, machine_id: 5, heartbeat_ms: 1000 });
  return { fake, hello };
}

describe.skipIf(!process.env.DOCKER_HOST)("the agent on a real engine", () => {
  let limits: DiskLimits;
  let unlockFirewall: () => Promise<void>;
  // The agent checks the firewall: no other test may take it away meanwhile.
  beforeAll(async () => {
    unlockFirewall = await lockFirewall();
    await promisify(execFile)("bash", [FIREWALL_SCRIPT, DEFAULT_NETWORK_POOL]);
    limits = await probeDiskLimits(new Docker());
  });
  afterAll(() => unlockFirewall?.());

  it("where disk_gb cannot be enforced, takes no instances by default: degraded in its hello, a create refused with the reason", async (context) => {
    if (limits.enforced !== false) return context.skip();
    const { fake, hello } = await agentOnEngine([]);
    const reason = `disk_gb cannot be enforced here (${limits.reason}) and --unenforced-disk is refuse`;
    expect(hello).toMatchObject({ runtime: "docker", disk_gb_enforced: false, degraded: reason, host: { memory_bytes: expect.any(Number), cpus: expect.any(Number) } });
    const id = randomInstanceId();
    fake.send({ type: "command", command_id: "c-refused", op: "create", instance_id: id, spec: testSpec(id, { image: TEST_IMAGE }) });
    expect(await fake.waitFor("ack", (m) => m.command_id === "c-refused")).toEqual({
      type: "ack", command_id: "c-refused", ok: false, error: `create failed: this host takes no new instances now: ${reason}`,
    });
  });

  it("with --unenforced-disk accept, takes instances, each saying its limit is not enforced; its hello says the engine's data root's disk", async (context) => {
    if (limits.enforced !== false) return context.skip();
    const { fake, hello } = await agentOnEngine(["--unenforced-disk", "accept"]);
    const dataRoot = await statfs(((await new Docker().info()) as { DockerRootDir: string }).DockerRootDir);
    expect(hello).toMatchObject({ disk_gb_enforced: false, degraded: "", disk: { total_bytes: dataRoot.blocks * dataRoot.bsize, free_bytes: expect.any(Number) } });
    const id = randomInstanceId();
    fake.send({ type: "command", command_id: "c-taken", op: "create", instance_id: id, spec: testSpec(id, { image: TEST_IMAGE, gpu_indices: [], disk_gb: 12 }) });
    cleanups.push(async () => {
      fake.send({ type: "command", command_id: "c-gone", op: "destroy", instance_id: id, spec: null });
      await fake.waitFor("ack", (m) => m.command_id === "c-gone");
    });
    expect(await fake.waitFor("ack", (m) => m.command_id === "c-taken", 0, 30_000)).toMatchObject({ ok: true });
    expect(fake.messages().find((m) => m.type === "container" && m.state === "creating")).toEqual({
      type: "container", instance_id: id, state: "creating", message: `disk_gb (12 GB) is not enforced on this host: ${limits.reason}`,
    });
  });

  it("puts back a tenant table taken away (firewall.sh from the repository here), degraded in the meantime", async () => {
    const { fake, hello } = await agentOnEngine(["--unenforced-disk", "accept"]);
    expect(hello).toMatchObject({ degraded: "" });
    const from = fake.received.length;
    await promisify(execFile)("nft", ["delete", "table", "inet", "gpu_rental"]);
    expect(await fake.waitFor("health", () => true, from)).toEqual({
      type: "health",
      degraded: expect.stringMatching(/^tenant firewall: the nftables table inet gpu_rental is missing; running instances are off the network until it is back \(fix: /),
    });
    expect(await fake.waitFor("health", (m) => m.degraded === "", from)).toEqual({ type: "health", degraded: "" });
    await promisify(execFile)("nft", ["list", "table", "inet", "gpu_rental"]);
  });
});
