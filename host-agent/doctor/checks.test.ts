// Doctor's checks on recorded real outputs (fixtures/SOURCES.md, ../gpus/fixtures/SOURCES.md): a
// healthy host passes every check, and each missing part fails its own line with a fix.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { CommandResult } from "../host-command.ts";
import { readTable, type TableRead } from "../tenant-firewall/nft-table.ts";
import { exitCodeOf, formatReport, type CheckResult } from "./check.ts";
import { checkFreeDisk, DISK_NEED_BYTES, DISK_WANT_BYTES, parseDfAvailable } from "./disk-check.ts";
import { checkDiskLimits, checkEngine, checkNvidiaRuntime, checkUserNamespaces, type EngineAnswer, type EngineInfo } from "./docker-checks.ts";
import { checkCuda, checkDriver, checkGpus } from "./gpu-checks.ts";
import { checkResourceSplit } from "./resource-check.ts";
import { checkServer } from "./server-check.ts";
import { checkTenantNetwork } from "./tenant-network-check.ts";
import type { ProbeAttempt, ProbeReport } from "./tenant-network-probe.ts";

const doctorFixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
const gpuFixture = (name: string) => readFileSync(new URL(`../gpus/fixtures/${name}`, import.meta.url), "utf8");
const printed = (stdout: string): CommandResult => ({ ok: true, stdout });
const failed = (output: string, exitCode: number | null = 1): CommandResult => ({ ok: false, missing: false, exitCode, output });
const notInstalled: CommandResult = { ok: false, missing: true, exitCode: null, output: "spawn nvidia-smi ENOENT" };

const POOL = "10.213.0.0/16";
const SOCKET = "unix:///var/run/docker.sock";
const podmanInfo = JSON.parse(doctorFixture("engine-info-podman-4.3.json")) as EngineInfo;
const nvidiaRuntimes = JSON.parse(doctorFixture("engine-runtimes-with-nvidia.json")) as Record<string, unknown>;
const engine = (info: EngineInfo): EngineAnswer => ({ ok: true, info });
const refused = (what: string, target: string, rule: string): ProbeAttempt => ({ what, target, rule, reached: false, ruleMet: true });
const probeAttempts = [
  refused("another instance", "10.213.0.2:8080", "from_instance/instance"),
  refused("the host", "10.213.0.17:40001", "to_host/host"),
  refused("a link-local metadata service", "169.254.169.254:80", "from_instance/link-local"),
];
const firewallFixture = (name: string): TableRead => readTable(printed(readFileSync(new URL(`../tenant-firewall/fixtures/${name}`, import.meta.url), "utf8")));
const probed = (attempts: ProbeAttempt[], table = firewallFixture("nft-table-after-traffic.json")): ProbeReport => ({ ok: true, attempts, table, bridgeNamed: true });

describe("doctor on a healthy host", () => {
  it("passes every check and exits 0", () => {
    const results: CheckResult[] = [
      checkDriver(printed(gpuFixture("driver-query-515.txt"))),
      checkGpus(printed(gpuFixture("8x-h100.csv"))),
      checkCuda(printed(gpuFixture("banner-h100-driver-550.txt"))),
      checkResourceSplit({ memory_bytes: 2048 * 1024 ** 3, cpus: 224 }, 8),
      checkEngine(engine(podmanInfo), SOCKET),
      checkNvidiaRuntime(engine({ Runtimes: nvidiaRuntimes })),
      checkFreeDisk("model cache", "/var/lib/gpu-rental/hf-cache", printed(doctorFixture("df-healthy.txt")), DISK_NEED_BYTES, DISK_WANT_BYTES),
      checkTenantNetwork(probed(probeAttempts), POOL),
      checkServer({ status: 204 }, "https://api.example.com"),
    ];
    expect(results.map((r) => [r.status, r.name])).toEqual([
      ["ok", "nvidia driver"],
      ["ok", "gpus"],
      ["ok", "cuda"],
      ["ok", "resources"],
      ["ok", "docker"],
      ["ok", "nvidia runtime"],
      ["ok", "model cache"],
      ["ok", "tenant network"],
      ["ok", "server"],
    ]);
    expect(results.map((r) => r.detail)).toEqual([
      "driver 515.57",
      "8 × NVIDIA H100 80GB HBM3 (h100-80gb)",
      "CUDA 12.4 (templates needing a newer CUDA are not placed here)",
      "2048.0 GiB and 224 CPUs; the host keeps 204.8 GiB and 14 CPUs; each of its 8 GPU(s) brings an instance 230.4 GiB (no swap) and 26.25 CPUs",
      `engine 4.3.1 on debian at ${SOCKET}`,
      "registered (runtimes: io.containerd.runc.v2, nvidia, runc)",
      "76.1 GiB free in /var/lib/gpu-rental/hf-cache",
      "a probe instance in 10.213.0.0/16 was refused another instance (10.213.0.2:8080), the host (10.213.0.17:40001), a link-local metadata service (169.254.169.254:80), each by its rule",
      "https://api.example.com answers and accepts this machine's token",
    ]);
    expect(exitCodeOf(results)).toBe(0);
  });

  it("prints one line per check, with the fix on lines that are not ok", () => {
    const report = formatReport([checkServer({ status: 204 }, "https://a.example"), checkCuda(printed(gpuFixture("banner-gtx680-driver-331.txt")))]);
    expect(report.split("\n")).toEqual([
      "OK    server  https://a.example answers and accepts this machine's token",
      "FAIL  cuda    the nvidia-smi banner shows no CUDA version (driver too old) — fix: install a driver that supports CUDA 12.8 or newer (R570+); no template is placed on this host until then",
      "",
    ]);
  });

  it("reads the R610 banner's CUDA UMD version", () => {
    expect(checkCuda(printed(gpuFixture("banner-b200-driver-610.txt")))).toMatchObject({ status: "ok", detail: expect.stringContaining("CUDA 13.3") });
  });
});

describe("doctor finds each missing part", () => {
  it.each<[string, () => CheckResult, string, RegExp]>([
    ["no nvidia-smi", () => checkDriver(notInstalled), "nvidia-smi is not installed", /install the NVIDIA datacenter driver/],
    ["a driver that is not loaded", () => checkDriver(failed(gpuFixture("driver-not-loaded.txt"), 9)), "nvidia-smi cannot talk to the driver (it is not loaded)", /reboot after installing the driver/],
    ["a driver too old to report CUDA", () => checkCuda(printed(gpuFixture("banner-gtx680-driver-331.txt"))), "the nvidia-smi banner shows no CUDA version (driver too old)", /CUDA 12.8 or newer/],
    ["no CUDA because nvidia-smi failed", () => checkCuda(failed(gpuFixture("driver-not-loaded.txt"), 9)), "nvidia-smi failed, so the CUDA version is unknown", /nvidia driver check/],
    ["no GPU listed", () => checkGpus(printed("")), "nvidia-smi lists no GPU", /lspci/],
    ["no engine", () => checkEngine({ ok: false, error: "connect ENOENT /var/run/docker.sock" }, SOCKET), `no engine answers at ${SOCKET} (connect ENOENT /var/run/docker.sock)`, /systemctl enable --now docker/],
    ["an engine without the nvidia runtime", () => checkNvidiaRuntime(engine(podmanInfo)), "the engine has no nvidia runtime (runtimes: crun, kata, krun, runc, runj, runsc), so containers cannot get GPUs", /nvidia-ctk runtime configure --runtime=docker/],
    ["a missing state dir", () => checkFreeDisk("state dir", "/var/lib/gpu-rental-missing", failed(doctorFixture("df-missing-dir.txt")), DISK_NEED_BYTES, DISK_NEED_BYTES), "/var/lib/gpu-rental-missing does not exist", /mkdir -p \/var\/lib\/gpu-rental-missing/],
    ["a full disk", () => checkFreeDisk("model cache", "/mnt/gpr-full", printed(doctorFixture("df-nearly-full.txt")), DISK_NEED_BYTES, DISK_WANT_BYTES), "0.0 GiB free in /mnt/gpr-full", /needs 1 GiB/],
    ["tenant network rules missing", () => checkTenantNetwork(probed([{ ...probeAttempts[1]!, reached: true, ruleMet: false }, { ...probeAttempts[2]!, ruleMet: false }], { ok: false, reason: "the nftables table inet gpu_rental is missing", fix: "run firewall.sh as root" }), POOL), "the nftables table inet gpu_rental is missing; an instance reached the host (10.213.0.17:40001)", /firewall.sh/],
    ["tenant network rules bypassed", () => checkTenantNetwork(probed([probeAttempts[0]!, { ...probeAttempts[1]!, reached: true, ruleMet: false }, { ...probeAttempts[2]!, ruleMet: false }]), POOL), "an instance reached the host (10.213.0.17:40001); no packet to a link-local metadata service (169.254.169.254:80) met the rule from_instance/link-local: the table inet gpu_rental is there but bypassed", /look for rules added to table inet gpu_rental/],
    ["a tenant network rule altered where no probe looks", () => checkTenantNetwork(probed(probeAttempts, firewallFixture("nft-table-private-accepted.json")), POOL),
      "the table inet gpu_rental chain from_instance rule 5 is (private: ip6 daddr fc00::/7 counter accept) where firewall.sh sets (private: ip6 daddr fc00::/7 counter reject with icmpx admin-prohibited)", /firewall.sh/],
    ["an engine that ignores the bridge name", () => checkTenantNetwork({ ...probed(probeAttempts), bridgeNamed: false } as ProbeReport, POOL), expect.stringContaining("the engine did not name the probe's bridge gpr-…"), /com.docker.network.bridge.name/],
    ["a probe that cannot run", () => checkTenantNetwork({ ok: false, error: "(HTTP code 404) no such image" }, POOL), "the probe instances could not run ((HTTP code 404) no such image)", /--probe-image/],
    ["disk limits it cannot enforce, refused", () => checkDiskLimits({ enforced: false, reason: "--storage-opt is supported only for overlay over xfs with 'pquota' mount option" }, false, "/var/lib/docker"),
      "disk_gb cannot be enforced (--storage-opt is supported only for overlay over xfs with 'pquota' mount option); --unenforced-disk refuse: this host takes no instances", /--unenforced-disk accept/],
    ["a server that does not answer", () => checkServer({ error: "ECONNREFUSED" }, "https://api.example.com"), "https://api.example.com does not answer (ECONNREFUSED)", /AGENT_SERVER/],
    ["a wrong token", () => checkServer({ status: 401 }, "https://api.example.com"), "https://api.example.com refuses the token (401)", /agent_token/],
    ["a URL that is not the service", () => checkServer({ status: 404 }, "https://example.com"), "https://example.com answered 404, not an agent endpoint", /base URL/],
  ])("%s fails with a fix", (_, check, detail, fix) => {
    const result = check();
    expect(result).toMatchObject({ status: "fail", detail });
    expect(result.fix).toMatch(fix);
    expect(exitCodeOf([result])).toBe(1);
  });

  it("an unknown GPU is reported, never offered, and warns without failing", () => {
    const result = checkGpus(printed("0, NVIDIA A10G, GPU-1, 23028\n1, NVIDIA A10, GPU-2, 23028\n"));
    expect(result).toMatchObject({ status: "warn", detail: "1 × NVIDIA A10G (unknown), 1 × NVIDIA A10 (a10): NVIDIA A10G not in the price table, never offered" });
    expect(exitCodeOf([result])).toBe(0);
  });

  const PODMAN_REFUSAL = "--storage-opt is supported only for overlay over xfs with 'pquota' mount option";

  it("says whether disk_gb is enforced, from the engine's answer to a probe container", () => {
    expect(checkDiskLimits({ enforced: true }, false, "/var/lib/docker")).toMatchObject({ status: "ok", detail: "disk_gb is enforced: the engine limits each container's writable layer" });
    expect(checkDiskLimits({ enforced: null, reason: "connect ENOENT" }, false, undefined)).toMatchObject({ status: "warn", detail: "could not check whether disk_gb is enforced (connect ENOENT)" });
  });

  it("warns where disk_gb cannot be enforced and the operator accepts instances anyway, and says where it can", () => {
    const result = checkDiskLimits({ enforced: false, reason: PODMAN_REFUSAL }, true, podmanInfo.DockerRootDir);
    expect(result).toMatchObject({
      status: "warn",
      detail: `disk_gb cannot be enforced (${PODMAN_REFUSAL}); --unenforced-disk accept: instances run without a disk limit, each saying so`,
      fix: "put /var/lib/containers/storage on an xfs filesystem mounted with pquota",
    });
    expect(exitCodeOf([result])).toBe(0);
  });

  it("parses free space from df -Pk, and nothing from anything else", () => {
    expect(parseDfAvailable(doctorFixture("df-healthy.txt"))).toBe(79812564 * 1024);
    expect(parseDfAvailable(doctorFixture("df-nearly-full.txt"))).toBe(51200 * 1024);
    expect(parseDfAvailable(doctorFixture("df-missing-dir.txt"))).toBeNull();
  });
});

describe("doctor's user namespaces line", () => {
  it("passes where dockerd remaps containers' users, and on a rootless engine", () => {
    const remapped = JSON.parse(doctorFixture("engine-security-options-userns.json")) as string[];
    expect(checkUserNamespaces(engine({ SecurityOptions: remapped }))).toMatchObject({ status: "ok", detail: "userns-remap: root in a container is an unprivileged user of the host" });
    expect(checkUserNamespaces(engine({ SecurityOptions: ["name=seccomp,profile=builtin", "name=rootless", "name=cgroupns"] }))).toMatchObject({ status: "ok" });
  });

  it("warns, without failing, where containers' root is the host's (podman's info here), saying how to remap", () => {
    const result = checkUserNamespaces(engine(podmanInfo));
    expect(result).toMatchObject({ status: "warn", detail: "containers' root is the host's root (no userns-remap): a container escape would land as root" });
    expect(result.fix).toMatch(/"userns-remap": "default" in \/etc\/docker\/daemon.json/);
    expect(exitCodeOf([result])).toBe(0);
  });
});
