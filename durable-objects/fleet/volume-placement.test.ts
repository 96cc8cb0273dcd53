// Placement prefers a host whose agent said its cache holds the launch's volumes at their latest
// versions: from the agent's volume_cache through its MachineDO's push into the FleetDO's index, and
// the launch's versions filled by the account. An older version held counts for nothing.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { machineIdOfInstance } from "../../core/ids.ts";
import { callJson, newAccount, keyCredential } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { until } from "../../test/support/workerd/poll.ts";
import { storeSave } from "../../test/support/workerd/volume-content.ts";

let bestFit: FakeAgent;
let holder: FakeAgent;

beforeAll(async () => {
  // A launch of one GPU goes to the host with fewest free GPUs that fit, all else equal.
  bestFit = await FakeAgent.online("placement-best-fit", ["a100-80gb"]);
  holder = await FakeAgent.online("placement-holder", ["a100-80gb", "a100-80gb", "a100-80gb", "a100-80gb"]);
});

const launchRequest = { gpu_model: "a100-80gb", gpu_count: 1, template: "pytorch", min_cuda: "12.0", disk_gb: 50 };

/** An account's volume saved twice: at version 2. */
async function volumeAtVersion2() {
  const { id: accountId, key } = await newAccount();
  const created = await callJson<{ id: string }>("POST", "/v1/volumes", { key, body: { name: "data", size_gb: 1 } });
  const volumeId = created.body.id;
  const account = env.ACCOUNTS.getByName(accountId);
  for (const [base, files] of [[0, { "a.txt": "one" }], [1, { "a.txt": "two" }]] as const) {
    const { manifest } = await storeSave(accountId, volumeId, files);
    expect(await account.commitVolumeFiles(keyCredential(key), { volume_id: volumeId, instance_id: null, base_version: base, manifest, bytes_sent: 3 })).toMatchObject({ ok: true, version: base + 1 });
  }
  return { key, volumeId };
}

/** Has the holder report `version` of the volume and waits until the fleet's index shows it (placement asked for that version puts the holder first). */
async function holderSays(volumeId: string, version: number): Promise<void> {
  holder.send({ type: "volume_cache", volumes: [{ volume_id: volumeId, version }] });
  const fleet = env.FLEET.getByName("fleet");
  const first = async () => {
    const placement = await fleet.placementCandidates({ ...launchRequest, volume_versions: [{ volume_id: volumeId, version, read_only: false }] });
    return placement.ok ? placement.machine_ids[0] : placement.message;
  };
  await until(first, (machineId) => machineId === holder.machineId, `the fleet to index version ${version} on the holder`);
}

/** Launches through the API with the volume; the machine it went to. */
async function launchWith(key: string, volume: Record<string, unknown>): Promise<number> {
  const launched = await callJson<{ id: string }>("POST", "/v1/instances", { key, body: { gpu_model: "a100-80gb", gpu_count: 1, template: "pytorch", volumes: [volume] } });
  expect(launched.status, JSON.stringify(launched.body)).toBe(201);
  return machineIdOfInstance(launched.body.id)!;
}

describe("placement of a launch with volumes", () => {
  it("takes the host holding the volume's latest version over the best fit, and not one holding an older version", async () => {
    const { key, volumeId } = await volumeAtVersion2();
    await holderSays(volumeId, 1);
    expect(await launchWith(key, { volume_id: volumeId, path: "/ref", read_only: true })).toBe(bestFit.machineId);

    await holderSays(volumeId, 2);
    expect(await launchWith(key, { volume_id: "data", path: "/workspace" })).toBe(holder.machineId);
  });
});
