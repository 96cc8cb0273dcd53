// Each instance's own bridge network, with a /28 from the agent's pool and a bridge device named
// `gpr-…`: containers of different instances never share a bridge, and the host firewall
// (deploy/host-agent/firewall.sh) knows instance traffic by its bridge (IPv4 and IPv6 alike) and by
// its pool address, so one tenant cannot connect to another's servers, the host or its network.
// While that firewall is gone, the agent takes the bridges down (setBridgesUp).
import type Docker from "dockerode";
import { failureText, runHostCommand } from "../host-command.ts";
import { INSTANCE_LABEL, MANAGED_LABEL } from "./docker-container-config.ts";
import { statusOf } from "./docker-pull.ts";
import { freeSubnet } from "./subnet-pool.ts";

export function networkName(instanceId: string): string {
  return `gpu-rental-${instanceId}`;
}

/** What every instance bridge's name starts with: the firewall matches `iifname "gpr-*"`. */
export const BRIDGE_PREFIX = "gpr-";

/** The bridge device of an instance network: the prefix and the id's last 11 characters (Linux allows 15 in all). */
export function bridgeName(instanceId: string): string {
  return `${BRIDGE_PREFIX}${instanceId.slice(-11)}`;
}

/**
 * Podman 4.3 (Debian 12's) edits a network's cached options while it answers a list or an inspect,
 * and two at once crash its API service ("fatal error: concurrent map writes", seen in CI): this
 * process asks one at a time. Docker has no such bug.
 */
let networkReads: Promise<unknown> = Promise.resolve();
function oneReadAtATime<T>(read: () => Promise<T>): Promise<T> {
  const done = networkReads.then(read);
  networkReads = done.catch(() => undefined);
  return done;
}

/** How many times a create that lost its subnet to another network is tried again with a fresh list. */
const SUBNET_TRIES = 8;

/**
 * Serializes subnet choices of one agent: two creates must not pick the same free /28. The engine
 * is the authority on which subnets are taken: anything else on the host (another agent sharing the
 * engine, an operator's compose file) can take the /28 chosen here between the list and the create,
 * so a create refused for an overlap is tried again with a fresh list.
 */
export class InstanceNetworks {
  readonly #docker: Docker;
  readonly #pool: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(docker: Docker, pool: string) {
    this.#docker = docker;
    this.#pool = pool;
  }

  /** Creates the instance's network unless it exists; returns its name. */
  ensure(instanceId: string): Promise<string> {
    const done = this.#queue.then(() => this.#ensure(instanceId));
    this.#queue = done.catch(() => undefined);
    return done;
  }

  async remove(instanceId: string): Promise<void> {
    await this.#docker.getNetwork(networkName(instanceId)).remove().catch((error: unknown) => {
      if (statusOf(error) !== 404) throw error;
    });
  }

  /**
   * Sets the bridges of these instances' networks down or up. A bridge that is down passes no packet
   * between its containers and anything else, with no firewall rule to lose: what holds while the
   * tenant firewall is gone (a flushed ruleset takes every table with it, a fallback's too). Each bridge
   * is found by its gateway's address, so a network made before bridges were named is found as well.
   * Returns the bridges set; tries every one before it throws for those that failed.
   */
  async setBridgesUp(instanceIds: readonly string[], up: boolean): Promise<string[]> {
    const gateways = new Set<string>();
    for (const id of instanceIds) {
      const network = await oneReadAtATime(() => this.#docker.getNetwork(networkName(id)).inspect()).catch((error: unknown) => (statusOf(error) === 404 ? null : Promise.reject(error)));
      for (const config of (network as Docker.NetworkInspectInfo | null)?.IPAM?.Config ?? []) if (config.Gateway) gateways.add(config.Gateway);
    }
    if (gateways.size === 0) return [];
    const listed = await runHostCommand("ip", ["-j", "-4", "address", "show"]);
    if (!listed.ok) throw new Error(`ip -j -4 address show failed (${failureText(listed)})`);
    const links = JSON.parse(listed.stdout) as { ifname: string; addr_info?: { local?: string }[] }[];
    const bridges = links.filter((link) => link.addr_info?.some((address) => gateways.has(address.local ?? ""))).map((link) => link.ifname);
    const failed: string[] = [];
    for (const bridge of bridges) {
      const set = await runHostCommand("ip", ["link", "set", "dev", bridge, up ? "up" : "down"]);
      if (!set.ok) failed.push(`${bridge}: ${failureText(set)}`);
    }
    if (failed.length > 0) throw new Error(`ip link set ${up ? "up" : "down"} failed for ${failed.join(", ")}`);
    return bridges;
  }

  async #ensure(instanceId: string): Promise<string> {
    const name = networkName(instanceId);
    const existing = await oneReadAtATime(() => this.#docker.getNetwork(name).inspect()).catch((error: unknown) => (statusOf(error) === 404 ? null : Promise.reject(error)));
    if (existing) return name;
    for (let tries = 1; ; tries++) {
      try {
        await this.#create(instanceId, await this.#freeSubnet());
        return name;
      } catch (error) {
        if (tries === SUBNET_TRIES || !isSubnetTaken(error)) throw error;
      }
    }
  }

  async #freeSubnet(): Promise<string> {
    const networks = await oneReadAtATime(() => this.#docker.listNetworks());
    const used = networks.flatMap((network) => (network.IPAM?.Config ?? []).map((config) => config.Subnet ?? ""));
    const subnet = freeSubnet(this.#pool, used);
    if (!subnet) throw new Error(`no free /28 left in the network pool ${this.#pool}; destroy instances or widen --network-pool`);
    return subnet;
  }

  async #create(instanceId: string, subnet: string): Promise<void> {
    await this.#docker.createNetwork({
      Name: networkName(instanceId),
      Driver: "bridge",
      CheckDuplicate: true,
      IPAM: { Driver: "default", Config: [{ Subnet: subnet }] },
      // Docker's option, which podman's compatible API honours too.
      Options: { "com.docker.network.bridge.name": bridgeName(instanceId) },
      Labels: { [MANAGED_LABEL]: "true", [INSTANCE_LABEL]: instanceId },
    });
  }
}

/** Docker refuses an overlapping pool with "Pool overlaps with other one on this address space", podman with "subnet … is already used". */
function isSubnetTaken(error: unknown): boolean {
  return error instanceof Error && /pool overlaps|is already used/i.test(error.message);
}
