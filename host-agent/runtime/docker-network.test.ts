// Instance networks against a real Docker-compatible engine (scripts/ci/podman.sh provides one):
// runs when DOCKER_HOST is set; docker-runtime.test.ts fails the run when REQUIRE_DOCKER_ENGINE=1
// and there is none.
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomInstanceId } from "../../test/support/agent/specs.ts";
import { InstanceNetworks, networkName } from "./docker-network.ts";
import { poolContains } from "./subnet-pool.ts";

describe.skipIf(!process.env.DOCKER_HOST)("instance networks on a shared engine", () => {
  const docker = new Docker();
  const ids = Array.from({ length: 12 }, randomInstanceId);
  // A pool of its own, so the other files' networks (on the default pool) do not fill it.
  const pool = "10.214.0.0/24";

  // A run cut off before its cleanup (the engine gone mid-test) leaves its networks in the pool.
  beforeAll(async () => {
    const leftovers = (await docker.listNetworks()).filter((network) => network.IPAM?.Config?.some((config) => poolContains(pool, config.Subnet?.split("/")[0] ?? "")));
    await Promise.all(leftovers.map((network) => docker.getNetwork(network.Id).remove()));
  });

  afterAll(async () => {
    const networks = new InstanceNetworks(docker, pool);
    await Promise.all(ids.map((id) => networks.remove(id)));
  });

  it("two agents creating networks at once each get a /28 of their own: a subnet lost to the other is chosen again", async () => {
    // Each agent serializes its own choices; only the engine knows what the other one took.
    const agents = [new InstanceNetworks(docker, pool), new InstanceNetworks(docker, pool)];
    // Settled, not all: a refused create must not leave the others creating after the cleanup.
    const created = await Promise.allSettled(ids.map((id, i) => agents[i % 2]!.ensure(id)));
    expect(created.filter((result) => result.status === "rejected")).toEqual([]);
    const subnets = await Promise.all(ids.map(async (id) => (await docker.getNetwork(networkName(id)).inspect()).IPAM?.Config?.[0]?.Subnet));
    expect(new Set(subnets).size).toBe(ids.length);
  });
});
