// Doctor's tenant network probe: the host firewall judged by what it does, not by which rules exist.
// Two throwaway instances are placed as the docker runtime places a tenant's (a network of their
// own from the pool, the same capabilities and limits); one of them tries, as a hostile tenant
// would, to reach the other, the host (over IPv4 and IPv6), a link-local metadata address, a
// carrier-grade NAT one and a private one. Each attempt must fail, and the counter of the
// gpu_rental rule meant to refuse it must move: a rule no packet meets is not doing its job,
// whatever `nft list` shows.
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { networkInterfaces } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import type Docker from "dockerode";
import type { ContainerSpec } from "../../protocol/messages.ts";
import type { RunCommand } from "../host-command.ts";
import { errorMessage } from "../log.ts";
import { containerCreateOptions, containerName, LOG_FILE_BYTES } from "../runtime/docker-container-config.ts";
import { execIn } from "../runtime/docker-exec.ts";
import { bridgeName, InstanceNetworks } from "../runtime/docker-network.ts";
import { ensureImage, PULL_STALL_MS } from "../runtime/docker-pull.ts";
import { poolContains } from "../runtime/subnet-pool.ts";
import { NFT_LIST_ARGS, packetsOf, readTable, type TableRead } from "../tenant-firewall/nft-table.ts";

/** Marks the probe's containers; never the agent's own labels, so a running agent never takes them for instances. */
const PROBE_LABEL = "gpu-rental.doctor-probe";
const LISTENER_PORT = 8080;
const CONNECT_SECONDS = 3;
const LISTENER_READY_MS = 15_000;
const LINK_LOCAL_WAIT_MS = 5_000;
const IFA_F_TENTATIVE = 0x40;
/** busybox's sh, nc and httpd need little: limits like a tenant's, small. */
const PROBE_SHARE = { memory_bytes: 64 * 1024 ** 2, nano_cpus: 250_000_000 };

export interface ProbeAttempt {
  /** What a tenant would be reaching, in words ("another instance"). */
  what: string;
  target: string;
  /** The gpu_rental rule meant to refuse it, `chain/comment`. */
  rule: string;
  reached: boolean;
  /** Whether that rule's counter moved during the attempt. */
  ruleMet: boolean;
}

export type ProbeReport =
  /** `bridgeNamed`: the engine named the instance bridge as asked, so the rules that know instances by it apply. */
  | { ok: true; attempts: ProbeAttempt[]; table: TableRead; bridgeNamed: boolean }
  | { ok: false; error: string };

export interface ProbeOptions {
  docker: Docker;
  /** The agent's network pool: the probe's networks come from it, as instances' do. */
  pool: string;
  image: string;
  run: RunCommand;
}

interface Target {
  what: string;
  host: string;
  port: number;
  rule: string;
  /** Connections the target itself saw (the host's listener), besides what the prober's nc says. */
  seen?: () => number;
}

export async function probeTenantNetwork({ docker, pool, image, run }: ProbeOptions): Promise<ProbeReport> {
  const networks = new InstanceNetworks(docker, pool);
  const suffix = randomBytes(4).toString("hex");
  // Distinct in their last characters, which name their bridges (bridgeName).
  const ids = { listener: `doctor-${suffix}-listener`, prober: `doctor-${suffix}-prober` };
  let hostService: Server | undefined;
  try {
    await ensureImage(docker, image, () => {}, { always: false, stallMs: PULL_STALL_MS });
    const listener = await startProbeInstance(docker, networks, image, ids.listener, [
      "sh", "-c", `mkdir -p /tmp/www && echo reached > /tmp/www/index.html && exec httpd -f -p ${LISTENER_PORT} -h /tmp/www`,
    ]);
    const prober = await startProbeInstance(docker, networks, image, ids.prober, ["sleep", "600"]);
    await untilAnswers(`http://${listener.address}:${LISTENER_PORT}/`);
    let hostConnections = 0;
    hostService = createServer((socket) => {
      hostConnections++;
      socket.end("host service\n");
    });
    // Both IPv4 and IPv6: an instance reaches the host's link-local address on its bridge unless refused.
    await new Promise<void>((resolve) => hostService!.listen(0, "::", resolve));
    const hostPort = (hostService.address() as { port: number }).port;
    const seen = () => hostConnections;
    const bridge = networkInterfaces()[bridgeName(ids.prober)];
    const gatewayV6 = bridge ? await usableLinkLocal(bridgeName(ids.prober)) : undefined;
    const targets: Target[] = [
      { what: "another instance", host: listener.address, port: LISTENER_PORT, rule: "from_instance/instance" },
      { what: "the host", host: prober.gateway, port: hostPort, rule: "to_host/host", seen },
      ...(gatewayV6 ? [{ what: "the host over IPv6", host: `${gatewayV6}%eth0`, port: hostPort, rule: "to_host/host", seen }] : []),
      { what: "a link-local metadata service", host: "169.254.169.254", port: 80, rule: "from_instance/link-local" },
      { what: "a carrier-grade NAT address (Alibaba's metadata service)", host: "100.100.100.200", port: 80, rule: "from_instance/carrier-grade nat" },
      { what: "a private network", host: privateAddressOutside(pool), port: 80, rule: "from_instance/private" },
    ];
    const attempts: ProbeAttempt[] = [];
    let table = readTable(await run("nft", NFT_LIST_ARGS));
    // One at a time: two attempts meant for the same rule must not share its counter's movement.
    for (const target of targets) {
      const before = table;
      const seenBefore = target.seen?.() ?? 0;
      const attempt = await execIn(docker, containerName(ids.prober), [
        "sh", "-c", `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w ${CONNECT_SECONDS} ${target.host} ${target.port}`,
      ]);
      table = readTable(await run("nft", NFT_LIST_ARGS));
      const [chain = "", comment = ""] = target.rule.split("/");
      attempts.push({
        what: target.what,
        target: `${target.host}:${target.port}`,
        rule: target.rule,
        reached: attempt.exitCode === 0 || (target.seen?.() ?? 0) > seenBefore,
        ruleMet: before.ok && table.ok && packetsOf(table.table, chain, comment) > packetsOf(before.table, chain, comment),
      });
    }
    return { ok: true, attempts, table, bridgeNamed: bridge !== undefined };
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  } finally {
    hostService?.close();
    for (const id of Object.values(ids)) {
      await docker.getContainer(containerName(id)).remove({ force: true }).catch(() => undefined);
      await networks.remove(id).catch(() => undefined);
    }
  }
}

/** A container placed exactly as an instance's, but labelled as the probe's. Returns its address and its gateway's. */
async function startProbeInstance(docker: Docker, networks: InstanceNetworks, image: string, id: string, command: string[]): Promise<{ address: string; gateway: string }> {
  const network = await networks.ensure(id);
  const spec: ContainerSpec = { instance_id: id, image, template: "", model: "", env: {}, command, ports: [], gpu_indices: [], disk_gb: 1 };
  const options = containerCreateOptions(spec, { network, share: PROBE_SHARE, cachedModelDir: null, enforceDisk: false, notice: "", logFileBytes: LOG_FILE_BYTES, gpuDevices: true });
  const container = await docker.createContainer({ ...options, Labels: { [PROBE_LABEL]: "true" } });
  await container.start();
  const settings = (await container.inspect()).NetworkSettings.Networks[network];
  if (!settings?.IPAddress || !settings.Gateway) throw new Error(`the probe container on ${network} got no address`);
  return { address: settings.IPAddress, gateway: settings.Gateway };
}

/** An RFC 1918 address that is not the pool's (whose traffic another rule refuses). */
function privateAddressOutside(pool: string): string {
  return ["192.168.0.1", "172.16.0.1", "10.0.0.1"].find((address) => !poolContains(pool, address)) ?? "192.168.0.1";
}

/** The host reaches an instance's ports (the agent does): polls until the listener answers. */
async function untilAnswers(url: string): Promise<void> {
  const deadline = Date.now() + LISTENER_READY_MS;
  for (;;) {
    const answered = await fetch(url, { signal: AbortSignal.timeout(1_000) }).then((r) => r.ok, () => false);
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`the probe's listener at ${url} did not answer the host within ${LISTENER_READY_MS / 1000} s`);
    await sleep(100);
  }
}

/**
 * The bridge's IPv6 link-local address once the host takes packets for it: the kernel adds it a moment
 * after the bridge comes up, and drops what is sent to it while duplicate address detection runs
 * (about a second), which made a probe right after either skip IPv6 or find it refused by no rule.
 * Undefined where IPv6 is off on the bridge, or no usable address came within LINK_LOCAL_WAIT_MS.
 */
async function usableLinkLocal(bridge: string): Promise<string | undefined> {
  const ipv6Off = await readFile(`/proc/sys/net/ipv6/conf/${bridge}/disable_ipv6`, "utf8").then((value) => value.trim() === "1", () => true);
  if (ipv6Off) return undefined;
  const deadline = Date.now() + LINK_LOCAL_WAIT_MS;
  for (;;) {
    const address = networkInterfaces()[bridge]?.find((a) => a.family === "IPv6" && a.address.startsWith("fe80:"))?.address;
    if (address && !(await tentative(bridge))) return address;
    if (Date.now() > deadline) return undefined;
    await sleep(100);
  }
}

/** IFA_F_TENTATIVE among the flags /proc/net/if_inet6 lists (address, index, prefix, scope, flags, name) for the bridge's link-local address. */
async function tentative(bridge: string): Promise<boolean> {
  const lines = (await readFile("/proc/net/if_inet6", "utf8")).split("\n").map((line) => line.trim().split(/\s+/));
  return lines.some(([address = "", , , , flags = "0", name]) => name === bridge && address.startsWith("fe80") && (parseInt(flags, 16) & IFA_F_TENTATIVE) !== 0);
}
