// Tenant isolation of the docker runtime on a real engine (podman, as root, like CI): with the host
// firewall the install script sets (deploy/host-agent/firewall.sh), two instances cannot connect to
// each other, to the host (IPv4 or IPv6), to a link-local metadata service, to the host's private
// network or to a carrier-grade NAT address, each refused by the rule meant for it (its counter
// moves: a rule no packet meets proves nothing); the agent's own check and doctor's probe see the
// same, and fail when the rules are missing or bypassed (the agent putting them back:
// tenant-firewall/rules-watch.test.ts); only the model's own folder of the cache is inside,
// read-only (not the operator's token); privileges and limits hold. Sets the machine's
// nftables table inet gpu_rental (for the agent's default pool, left in place: idempotent), takes
// it away and back for the doctor cases (holding the machine-wide firewall test lock throughout),
// and adds a network namespace for the test's duration.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resourceShare } from "../../protocol/resource-share.ts";
import { execIn } from "../../test/support/agent/docker-exec.ts";
import { lockFirewall } from "../../test/support/agent/firewall-lock.ts";
import { randomInstanceId, testSpec } from "../../test/support/agent/specs.ts";
import { waitUntil } from "../../test/support/agent/wait-until.ts";
import { exitCodeOf } from "../doctor/check.ts";
import { checkTenantNetwork } from "../doctor/tenant-network-check.ts";
import { probeTenantNetwork } from "../doctor/tenant-network-probe.ts";
import { runHostCommand } from "../host-command.ts";
import { NFT_LIST_ARGS, packetsOf, readTable } from "../tenant-firewall/nft-table.ts";
import { firewallProblem } from "../tenant-firewall/rules-check.ts";
import { containerName } from "./docker-container-config.ts";
import { bridgeName, networkName } from "./docker-network.ts";
import { DockerRuntime, thisMachine } from "./docker-runtime.ts";
import { DEFAULT_NETWORK_POOL } from "./subnet-pool.ts";
import { ENGINE_TESTS_SCOPE } from "../../test/support/agent/engine-scope.ts";

const TEST_IMAGE = "localhost/gpu-rental-busybox:latest";
const FIREWALL_SCRIPT = new URL("../../deploy/host-agent/firewall.sh", import.meta.url).pathname;
const MODEL = "Qwen/Qwen2.5-0.5B-Instruct";
/** As if this machine had 4 GPUs: tenant A's 2 get half of what the host does not keep. */
const HOST_GPUS = 4;
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
 * Stand-ins for what a tenant must not reach beyond the host: HTTP servers in a network namespace
 * of their own, routed from the host as a real network is: a cloud metadata service on a
 * link-local address (not 169.254.169.254 itself, which this machine's own platform may answer
 * on), a machine of the host's private network, and Alibaba's metadata address in the carrier-grade
 * NAT range. Each answers the host; each is refused to a container by a rule of its own.
 */
const STAND_INS = {
  ns: "gpr-rental-beyond-test",
  veth: "beyond0",
  hostSide: "169.254.123.2",
  addresses: { linkLocal: "169.254.123.1", privateNetwork: "192.168.213.1", carrierGradeNat: "100.100.100.200" },
};
const removeStandIns = () => sh(`ip netns del ${STAND_INS.ns} 2>/dev/null; ip link del ${STAND_INS.veth} 2>/dev/null; true`);
async function startStandIns(): Promise<ChildProcess> {
  const { ns, veth, hostSide, addresses } = STAND_INS;
  await removeStandIns();
  const each = (line: (address: string) => string) => Object.values(addresses).map(line).join(" && ");
  await sh(`set -e
    ip netns add ${ns}
    ip link add ${veth} type veth peer name ${veth}p netns ${ns}
    ip addr add ${hostSide}/32 dev ${veth} && ip link set ${veth} up
    ${each((address) => `ip route add ${address}/32 dev ${veth}`)}
    ip -n ${ns} link set lo up && ${each((address) => `ip -n ${ns} addr add ${address}/32 dev ${veth}p`)} && ip -n ${ns} link set ${veth}p up
    ip -n ${ns} route add ${hostSide}/32 dev ${veth}p && ip -n ${ns} route add default via ${hostSide} dev ${veth}p`);
  const server = `require("node:http").createServer((_, res) => res.end("instance credentials\\n")).listen(80)`;
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
  let standIns: ChildProcess;

  let unlockFirewall: () => Promise<void>;

  beforeAll(async () => {
    unlockFirewall = await lockFirewall();
    await setFirewall();
    cacheDir = await mkdtemp(join(tmpdir(), "isolation-cache-"));
    await mkdir(join(cacheDir, "hub", "models--Qwen--Qwen2.5-0.5B-Instruct", "snapshots", "7ae557604adf67be50417f59c2c2f167def9a775"), { recursive: true });
    await mkdir(join(cacheDir, "hub", "models--meta-llama--Llama-3.1-8B", "snapshots", "d04e592bb4f6aa9cfee91e2e20afa771667e1d4b"), { recursive: true });
    await writeFile(join(cacheDir, "token"), "hf_operatorsecrettoken\n", { mode: 0o600 });
    await writeFile(join(cacheDir, "stored_tokens"), "[operator]\nhf_token = hf_operatorsecrettoken\n", { mode: 0o600 });
    runtime = new DockerRuntime({ modelCacheDir: cacheDir, stopTimeoutSeconds: 1, docker, resources: thisMachine(), hostGpus: HOST_GPUS, scope: ENGINE_TESTS_SCOPE });
    // Tenant A: two GPUs (the engine ignores the device request without an NVIDIA runtime) and a cached model.
    for (const [id, gpus] of [[tenantA, [0, 1]], [tenantB, []]] as const) {
      await runtime.create(testSpec(id, { image: TEST_IMAGE, ports: [8080], gpu_indices: [...gpus], model: MODEL }), () => {});
      await runtime.start(id);
    }
    hostService = createServer((socket) => {
      hostServiceConnections.push(socket.remoteAddress ?? "");
      socket.end("host secret\n");
    });
    // On every address, IPv4 and IPv6: a tenant must reach it on none.
    await new Promise<void>((resolve) => hostService.listen(0, "::", resolve));
    standIns = await startStandIns();
  }, 180_000);
  afterAll(async () => {
    await unlockFirewall?.();
    standIns?.kill();
    await removeStandIns();
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

  it("gives each instance a network of its own, on a bridge the firewall knows by name", async () => {
    const [a, b] = [await addressOf(tenantA), await addressOf(tenantB)];
    expect(a.Gateway).not.toBe(b.Gateway);
    expect(a.IPAddress).toMatch(/^10\.213\./);
    expect(b.IPAddress).toMatch(/^10\.213\./);
    for (const [id, network] of [[tenantA, a], [tenantB, b]] as const) {
      expect(networkInterfaces()[bridgeName(id)]?.find((address) => address.family === "IPv4")?.address).toBe(network.Gateway);
    }
  });

  it("the agent's own check finds the table as firewall.sh writes it", async () => {
    expect(firewallProblem(readTable(await runHostCommand("nft", NFT_LIST_ARGS)), DEFAULT_NETWORK_POOL)).toBeNull();
    expect(firewallProblem(readTable(await runHostCommand("nft", NFT_LIST_ARGS)), "10.50.0.0/16")).toEqual({
      reason: "the table inet gpu_rental names the pool 10.213.0.0/16, not this agent's 10.50.0.0/16",
      fix: expect.stringContaining("firewall.sh"),
    });
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

  it("a container cannot reach the host's own services, over IPv4 or IPv6", async () => {
    const port = (hostService.address() as { port: number }).port;
    const { Gateway } = await addressOf(tenantA);
    // The bridge's link-local address, which the container reaches through its eth0.
    const gatewayV6 = networkInterfaces()[bridgeName(tenantA)]?.find((address) => address.address.startsWith("fe80:"))?.address;
    expect(gatewayV6).toBeDefined();
    for (const host of [Gateway, `${gatewayV6}%eth0`]) {
      const refusals = await countedBy("to_host/host", async () => {
        const attempt = await connect(tenantA, host, port);
        expect(attempt.output).not.toContain("host secret");
        expect(attempt.exitCode).not.toBe(0);
      });
      expect(refusals).toBeGreaterThan(0);
    }
    expect(hostServiceConnections).toEqual([]);
  });

  it.each([
    ["a link-local metadata service", STAND_INS.addresses.linkLocal, "from_instance/link-local"],
    ["a machine on the host's private network", STAND_INS.addresses.privateNetwork, "from_instance/private"],
    ["a carrier-grade NAT address (Alibaba's metadata service)", STAND_INS.addresses.carrierGradeNat, "from_instance/carrier-grade nat"],
  ])("a container cannot reach %s, though the host can", async (_, address, rule) => {
    const fromHost = await waitUntil(async () => (await fetch(`http://${address}/`).catch(() => null))?.text(), `the stand-in at ${address} answers the host`);
    expect(fromHost).toBe("instance credentials\n");
    const refusals = await countedBy(rule, async () => {
      const attempt = await connect(tenantB, address, 80);
      expect(attempt.output).not.toContain("instance credentials");
      expect(attempt.exitCode).not.toBe(0);
    });
    expect(refusals).toBeGreaterThan(0);
  });

  // The agent's own check and doctor's probe, on the same host.
  describe("the agent's check and doctor's probe", () => {
    const agentCheck = async () => firewallProblem(readTable(await runHostCommand("nft", NFT_LIST_ARGS)), DEFAULT_NETWORK_POOL);
    const probe = async () => checkTenantNetwork(await probeTenantNetwork({ docker, pool: DEFAULT_NETWORK_POOL, image: TEST_IMAGE, run: runHostCommand }), DEFAULT_NETWORK_POOL);

    it("pass where the install script's rules refuse each attempt", async () => {
      expect(await agentCheck()).toBeNull();
      expect(await probe()).toEqual({
        status: "ok",
        name: "tenant network",
        detail: expect.stringMatching(new RegExp([
          "^a probe instance in 10\\.213\\.0\\.0/16 was refused another instance \\(10\\.213\\.\\d+\\.\\d+:8080\\)",
          "the host \\(10\\.213\\.\\d+\\.\\d+:\\d+\\)", "the host over IPv6 \\(fe80:[0-9a-f:]+%eth0:\\d+\\)",
          "a link-local metadata service \\(169\\.254\\.169\\.254:80\\)", "a carrier-grade NAT address \\(Alibaba's metadata service\\) \\(100\\.100\\.100\\.200:80\\)",
          "a private network \\(192\\.168\\.0\\.1:80\\), each by its rule$",
        ].join(", "))),
      });
    });

    it("fail, the probe reaching the host, where the rules are missing", async () => {
      await sh("nft delete table inet gpu_rental");
      try {
        const result = await probe();
        // Whether one instance then reaches another depends on the engine's own forwarding rules
        // (netavark's differ between versions), so that attempt may or may not be listed; the host always is.
        expect(result).toMatchObject({ status: "fail", detail: expect.stringMatching(/^the nftables table inet gpu_rental is missing; (an instance reached another instance \(10\.213\.\d+\.\d+:8080\); )?an instance reached the host \(10\.213\.\d+\.\d+:\d+\); an instance reached the host over IPv6/) });
        expect(exitCodeOf([result])).toBe(1);
        expect(await agentCheck()).toEqual({ reason: "the nftables table inet gpu_rental is missing", fix: expect.stringContaining("firewall.sh") });
      } finally {
        await setFirewall();
      }
      expect(await agentCheck()).toBeNull();
    });

    it("fail where the rules are there but something accepts the traffic before them", async () => {
      await sh("nft insert rule inet gpu_rental from_instance accept && nft insert rule inet gpu_rental to_host accept");
      try {
        const result = await probe();
        expect(result).toMatchObject({ status: "fail", detail: expect.stringContaining("an instance reached the host") });
        expect(result.detail).toContain("no packet to another instance");
        expect(result.detail).toMatch(/^the table inet gpu_rental chain from_instance rule 1 is \(\(unnamed\): accept\) where firewall.sh sets \(instance: /);
        expect(exitCodeOf([result])).toBe(1);
        expect((await agentCheck())?.reason).toMatch(/^the table inet gpu_rental chain from_instance rule 1 is \(\(unnamed\): accept\) where firewall.sh sets \(instance: /);
      } finally {
        await setFirewall();
      }
    });
  });

  it("mounts only its model's folder of the cache, read-only: the operator's token and other models stay out of reach", async () => {
    const model = "models--Qwen--Qwen2.5-0.5B-Instruct";
    const write = await execIn(docker, containerName(tenantA), ["touch", `/model-cache/hub/${model}/planted-weights`]);
    expect(write.exitCode).not.toBe(0);
    expect(write.output).toContain("Read-only file system");
    expect(await readdir(join(cacheDir, "hub", model))).toEqual(["snapshots"]);
    expect((await execIn(docker, containerName(tenantA), ["ls", "/model-cache/hub"])).output).toBe(`${model}\n`);
    expect((await execIn(docker, containerName(tenantA), ["ls", `/model-cache/hub/${model}/snapshots`])).output).toBe("7ae557604adf67be50417f59c2c2f167def9a775\n");
    // What `hf auth login` leaves in the cache root (HF_HOME), and another model: not there at all.
    for (const path of ["/model-cache/token", "/model-cache/stored_tokens", "/model-cache/hub/models--meta-llama--Llama-3.1-8B"]) {
      const read = await execIn(docker, containerName(tenantA), ["cat", path]);
      expect(read.exitCode).not.toBe(0);
      expect(read.output).not.toContain("hf_");
    }
    expect((await execIn(docker, containerName(tenantA), ["sh", "-c", "echo $HF_HUB_CACHE $HF_HUB_OFFLINE $HF_HOME"])).output).toBe("/model-cache/hub 1 /data/huggingface\n");
  });

  it("gets its share of the host's memory, with no swap, and of its CPUs, by GPUs", async () => {
    const share = resourceShare(thisMachine(), HOST_GPUS, 2);
    const info = await docker.getContainer(containerName(tenantA)).inspect();
    expect(info.HostConfig).toMatchObject({ Memory: share.memory_bytes, MemorySwap: share.memory_bytes, NanoCpus: share.nano_cpus });
    // What the kernel enforces, cgroup v1 or v2.
    const memory = await execIn(docker, containerName(tenantA), ["sh", "-c", "cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes"]);
    expect(Number(memory.output)).toBe(share.memory_bytes);
    const cpu = await execIn(docker, containerName(tenantA), ["sh", "-c", "cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo $(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)"]);
    const [quota = 0, period = 1] = cpu.output.trim().split(/\s+/).map(Number);
    expect(Math.round((quota / period) * 1e9)).toBe(share.nano_cpus);
    // Tenant B, with no GPU, counts as one.
    expect((await docker.getContainer(containerName(tenantB)).inspect()).HostConfig.Memory).toBe(resourceShare(thisMachine(), HOST_GPUS, 1).memory_bytes);
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
