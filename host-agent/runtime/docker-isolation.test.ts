// Tenant isolation of the docker runtime on a real engine (podman, as root, like CI): with the host
// firewall the install script sets (deploy/host-agent/firewall.sh), two instances cannot connect to
// each other, to the host, or to a link-local metadata service, each refused by the rule meant for
// it (its counter moves: a rule no packet meets proves nothing); doctor's probe sees the same, and
// fails when the rules are missing or bypassed; the model cache is read-only inside; privileges and
// limits hold. Sets the machine's nftables table inet gpu_rental (for the agent's default pool, left
// in place: idempotent), takes it away and back for the doctor cases, and adds a network namespace
// for the test's duration.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execIn } from "../../test/support/agent/docker-exec.ts";
import { randomInstanceId, testSpec } from "../../test/support/agent/specs.ts";
import { waitUntil } from "../../test/support/agent/wait-until.ts";
import { exitCodeOf } from "../doctor/check.ts";
import { checkTenantNetwork } from "../doctor/tenant-network-check.ts";
import { probeTenantNetwork } from "../doctor/tenant-network-probe.ts";
import { runHostCommand } from "../host-command.ts";
import { NFT_LIST_ARGS, packetsOf, readTable } from "../tenant-firewall/nft-table.ts";
import { containerName } from "./docker-container-config.ts";
import { networkName } from "./docker-network.ts";
import { DockerRuntime } from "./docker-runtime.ts";
import { DEFAULT_NETWORK_POOL } from "./subnet-pool.ts";

const TEST_IMAGE = "localhost/gpu-rental-busybox:latest";
const FIREWALL_SCRIPT = new URL("../../deploy/host-agent/firewall.sh", import.meta.url).pathname;
const MODEL = "Qwen/Qwen2.5-0.5B-Instruct";
const sh = (script: string) => promisify(execFile)("bash", ["-c", script]);
const setFirewall = () => promisify(execFile)("bash", [FIREWALL_SCRIPT, DEFAULT_NETWORK_POOL]);

/** Packets the gpu_rental rule `chain/comment` counted while `attempt` ran. */
async function countedBy(rule: string, attempt: () => Promise<void>): Promise<number> {
  const [chain = "", comment = ""] = rule.split("/");
  const packets = async () => {
    const read = readTable(await runHostCommand("nft", NFT_LIST_ARGS));
    if (!read.ok) throw new Error(read.reason);
    return packetsOf(read.table, chain, comment);
  };
  const before = await packets();
  await attempt();
  return (await packets()) - before;
}

/**
 * A stand-in for a cloud metadata service: an HTTP server on a link-local address in a network
 * namespace of its own, routed from the host as a real one is. Not 169.254.169.254 itself, which
 * this machine's own platform may answer on; the firewall drops all of 169.254.0.0/16 alike.
 */
const METADATA = { ns: "gpr-metadata-test", veth: "gprmeta0", address: "169.254.123.1", hostSide: "169.254.123.2" };
const removeMetadata = () => sh(`ip netns del ${METADATA.ns} 2>/dev/null; ip link del ${METADATA.veth} 2>/dev/null; true`);
async function startMetadata(): Promise<ChildProcess> {
  const { ns, veth, address, hostSide } = METADATA;
  await removeMetadata();
  await sh(`set -e
    ip netns add ${ns}
    ip link add ${veth} type veth peer name ${veth}p netns ${ns}
    ip addr add ${hostSide}/32 dev ${veth} && ip link set ${veth} up && ip route add ${address}/32 dev ${veth}
    ip -n ${ns} link set lo up && ip -n ${ns} addr add ${address}/32 dev ${veth}p && ip -n ${ns} link set ${veth}p up
    ip -n ${ns} route add ${hostSide}/32 dev ${veth}p && ip -n ${ns} route add default via ${hostSide} dev ${veth}p`);
  const server = `require("node:http").createServer((_, res) => res.end("instance credentials\\n")).listen(80, "${address}")`;
  return spawn("ip", ["netns", "exec", ns, process.execPath, "-e", server], { stdio: "ignore" });
}

describe.skipIf(!process.env.DOCKER_HOST)("tenant isolation on a real engine", () => {
  const docker = new Docker();
  const tenantA = randomInstanceId();
  const tenantB = randomInstanceId();
  let cacheDir: string;
  let runtime: DockerRuntime;
  let hostService: Server;
  const hostServiceConnections: string[] = [];
  let metadata: ChildProcess;

  beforeAll(async () => {
    await setFirewall();
    cacheDir = await mkdtemp(join(tmpdir(), "isolation-cache-"));
    await mkdir(join(cacheDir, "hub", "models--Qwen--Qwen2.5-0.5B-Instruct", "snapshots", "7ae557604adf67be50417f59c2c2f167def9a775"), { recursive: true });
    runtime = new DockerRuntime({ modelCacheDir: cacheDir, stopTimeoutSeconds: 1, docker });
    // Tenant A: two GPUs (the engine ignores the device request without an NVIDIA runtime) and a cached model.
    for (const [id, gpus] of [[tenantA, [0, 1]], [tenantB, []]] as const) {
      await runtime.create(testSpec(id, { image: TEST_IMAGE, ports: [8080], gpu_indices: [...gpus], model: MODEL }), () => {});
      await runtime.start(id);
    }
    hostService = createServer((socket) => {
      hostServiceConnections.push(socket.remoteAddress ?? "");
      socket.end("host secret\n");
    });
    await new Promise<void>((resolve) => hostService.listen(0, "0.0.0.0", resolve));
    metadata = await startMetadata();
  }, 60_000);
  afterAll(async () => {
    metadata?.kill();
    await removeMetadata();
    hostService?.close();
    await runtime?.destroy(tenantA);
    await runtime?.destroy(tenantB);
    await runtime?.close();
    await rm(cacheDir, { recursive: true, force: true });
  });

  const addressOf = async (id: string) => {
    const networks = (await docker.getContainer(containerName(id)).inspect()).NetworkSettings.Networks;
    return networks[networkName(id)]!;
  };
  const connect = (from: string, host: string, port: number) =>
    execIn(docker, containerName(from), ["sh", "-c", `printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | nc -w 2 ${host} ${port}`]);

  it("gives each instance a network of its own", async () => {
    const [a, b] = [await addressOf(tenantA), await addressOf(tenantB)];
    expect(a.Gateway).not.toBe(b.Gateway);
    expect(a.IPAddress).toMatch(/^10\.213\./);
    expect(b.IPAddress).toMatch(/^10\.213\./);
  });

  // podman's own per-network isolation (isolate=true) would drop this too, after ours: the counter
  // shows that the gpu_rental rule refused it first.
  it("two instances cannot connect to each other, though the host reaches both", async () => {
    const [a, b] = [await addressOf(tenantA), await addressOf(tenantB)];
    for (const address of [a.IPAddress, b.IPAddress]) {
      expect(await (await fetch(`http://${address}:8080/index.html`)).text()).toBe("gpu-rental busybox ok\n");
    }
    // nc inside a container works: its own server answers.
    expect((await connect(tenantA, "127.0.0.1", 8080)).output).toContain("gpu-rental busybox ok");
    for (const [from, to] of [[tenantA, b.IPAddress], [tenantB, a.IPAddress]] as const) {
      const refusals = await countedBy("from_instance/instance", async () => {
        const attempt = await connect(from, to, 8080);
        expect(attempt.output).not.toContain("gpu-rental busybox ok");
        expect(attempt.exitCode).not.toBe(0);
      });
      expect(refusals).toBeGreaterThan(0);
    }
  });

  it("a container cannot reach the host's own services", async () => {
    const port = (hostService.address() as { port: number }).port;
    const { Gateway } = await addressOf(tenantA);
    const refusals = await countedBy("to_host/host", async () => {
      const attempt = await connect(tenantA, Gateway, port);
      expect(attempt.output).not.toContain("host secret");
      expect(attempt.exitCode).not.toBe(0);
    });
    expect(refusals).toBeGreaterThan(0);
    expect(hostServiceConnections).toEqual([]);
  });

  it("a container cannot reach a link-local metadata service, though the host can", async () => {
    const fromHost = await waitUntil(
      async () => (await fetch(`http://${METADATA.address}/`).catch(() => null))?.text(),
      "the metadata stand-in answers the host",
    );
    expect(fromHost).toBe("instance credentials\n");
    const refusals = await countedBy("from_instance/link-local", async () => {
      const attempt = await connect(tenantB, METADATA.address, 80);
      expect(attempt.output).not.toContain("instance credentials");
      expect(attempt.exitCode).not.toBe(0);
    });
    expect(refusals).toBeGreaterThan(0);
  });

  describe("doctor's probe", () => {
    const probe = async () => checkTenantNetwork(await probeTenantNetwork({ docker, pool: DEFAULT_NETWORK_POOL, image: TEST_IMAGE, run: runHostCommand }), DEFAULT_NETWORK_POOL);

    it("passes where the install script's rules refuse each attempt", async () => {
      expect(await probe()).toEqual({
        status: "ok",
        name: "tenant network",
        detail: expect.stringMatching(/^a probe instance in 10\.213\.0\.0\/16 was refused another instance \(10\.213\.\d+\.\d+:8080\), the host \(10\.213\.\d+\.\d+:\d+\), a link-local metadata service \(169\.254\.169\.254:80\), each by its rule$/),
      });
    });

    it("fails, reaching the host, where the rules are missing", async () => {
      await sh("nft delete table inet gpu_rental");
      try {
        const result = await probe();
        expect(result).toMatchObject({ status: "fail", detail: expect.stringMatching(/^the nftables table inet gpu_rental is missing; an instance reached the host \(10\.213\.\d+\.\d+:\d+\)/) });
        expect(exitCodeOf([result])).toBe(1);
      } finally {
        await setFirewall();
      }
    });

    it("fails where the rules are there but something accepts the traffic before them", async () => {
      await sh("nft insert rule inet gpu_rental from_instance accept && nft insert rule inet gpu_rental to_host accept");
      try {
        const result = await probe();
        expect(result).toMatchObject({ status: "fail", detail: expect.stringContaining("an instance reached the host") });
        expect(result.detail).toContain("no packet to another instance");
        expect(result.detail).toMatch(/the table inet gpu_rental is there but bypassed$/);
        expect(exitCodeOf([result])).toBe(1);
      } finally {
        await setFirewall();
      }
    });
  });

  it("mounts the model cache read-only: a write to it fails inside the container, the server reads it offline", async () => {
    const write = await execIn(docker, containerName(tenantA), ["touch", "/model-cache/hub/planted-weights"]);
    expect(write.exitCode).not.toBe(0);
    expect(write.output).toContain("Read-only file system");
    expect(await readdir(join(cacheDir, "hub"))).toEqual(["models--Qwen--Qwen2.5-0.5B-Instruct"]);
    expect((await execIn(docker, containerName(tenantA), ["ls", "/model-cache/hub"])).output).toBe("models--Qwen--Qwen2.5-0.5B-Instruct\n");
    expect((await execIn(docker, containerName(tenantA), ["sh", "-c", "echo $HF_HUB_CACHE $HF_HUB_OFFLINE $HF_HOME"])).output).toBe("/model-cache/hub 1 /data/huggingface\n");
  });

  it("runs unprivileged: five capabilities, no new privileges, a PID limit, and a sized /dev/shm instead of the host's IPC", async () => {
    const status = await execIn(docker, containerName(tenantA), ["grep", "-E", "^(CapEff|CapBnd|NoNewPrivs):", "/proc/self/status"]);
    // CHOWN, DAC_OVERRIDE, FOWNER, SETGID, SETUID: bits 0, 1, 3, 6, 7.
    expect(status.output.replace(/\t/g, " ")).toBe("CapEff: 00000000000000cb\nCapBnd: 00000000000000cb\nNoNewPrivs: 1\n");
    const pids = await execIn(docker, containerName(tenantA), ["sh", "-c", "cat /sys/fs/cgroup/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids/pids.max"]);
    expect(pids.output).toBe("16384\n");
    const shm = await execIn(docker, containerName(tenantA), ["sh", "-c", "df -k /dev/shm | tail -1"]);
    expect(shm.output.split(/\s+/)[1]).toBe(String(2 * 8 * 1024 * 1024));
    const info = await docker.getContainer(containerName(tenantA)).inspect();
    expect(info.HostConfig).toMatchObject({ Privileged: false, SecurityOpt: ["no-new-privileges"] });
    expect(info.HostConfig.IpcMode).not.toBe("host");
    expect(info.HostConfig.PortBindings).toEqual({ "8080/tcp": [{ HostIp: "127.0.0.1", HostPort: expect.any(String) }] });
  });
});
