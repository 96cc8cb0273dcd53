// The MachineDO between its agent and the volumes of its containers: presigned URLs only for a volume
// the spec of one of this machine's containers mounts (PUT only read-write) until the host reports the
// container destroyed; commits and save failures forwarded to the volume's account; a save asked by
// the account sent to the agent as a command.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { machineOf } from "../../core/env.ts";
import { volumeObjectKey, type ServerMessage } from "../../protocol/index.ts";
import { callJson, newAccount } from "../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../test/support/workerd/fake-agent.ts";
import { launchOn, runningOn } from "../../test/support/workerd/instances.ts";
import { until } from "../../test/support/workerd/poll.ts";
import { storeSave } from "../../test/support/workerd/volume-content.ts";

type Signed = Extract<ServerMessage, { type: "volume_signed" }>;
type Committed = Extract<ServerMessage, { type: "volume_committed" }>;

const CHUNK = `chunks/${"a".repeat(64)}`;
const MANIFEST = "manifests/abcdefghijklmnop.json";
let host: FakeAgent;
let other: FakeAgent;
let nextRequest = 1;

beforeAll(async () => {
  host = await FakeAgent.online("volume-host", Array.from({ length: 12 }, () => "rtx4090"));
  // Another machine, whose GPUs no launch here asks for.
  other = await FakeAgent.online("volume-other-host", ["h100-80gb"]);
});

async function sign(agent: FakeAgent, instanceId: string, volumeId: string, method: "GET" | "PUT", names = [CHUNK, MANIFEST]): Promise<Signed> {
  const requestId = nextRequest++;
  agent.send({ type: "volume_sign", request_id: requestId, instance_id: instanceId, volume_id: volumeId, method, names });
  return agent.waitFor((m): m is Signed => m.type === "volume_signed" && m.request_id === requestId);
}

async function commit(agent: FakeAgent, instanceId: string, volumeId: string, manifest: string, baseVersion = 0): Promise<Committed> {
  const requestId = nextRequest++;
  agent.send({ type: "volume_commit", request_id: requestId, instance_id: instanceId, volume_id: volumeId, base_version: baseVersion, manifest, bytes_sent: 10 });
  return agent.waitFor((m): m is Committed => m.type === "volume_committed" && m.request_id === requestId);
}

const refusal = (error: RegExp) => ({ type: "volume_signed", request_id: expect.any(Number), urls: [], expires_s: 0, error: expect.stringMatching(error) });

/** An account with two volumes, one mounted read-write and one read-only in an instance launched on `host`. */
async function instanceWithVolumes() {
  const account = await newAccount();
  const volume = async (name: string) => (await callJson<{ id: string }>("POST", "/v1/volumes", { key: account.key, body: { name, size_gb: 1 } })).body.id;
  const [writable, readable, unmounted] = [await volume("work"), await volume("reference"), await volume("elsewhere")];
  const instanceId = await launchOn(host, account.key, { volumes: [{ volume_id: writable, path: "/workspace" }, { volume_id: readable, path: "/ref", read_only: true }] });
  return { account, instanceId, writable, readable, unmounted };
}

describe("volume URLs for the agent", () => {
  it("signs GET and PUT for a read-write mount, one URL per name under the account's and volume's prefix, valid 600 s", async () => {
    const { account, instanceId, writable } = await instanceWithVolumes();
    for (const method of ["GET", "PUT"] as const) {
      const signed = await sign(host, instanceId, writable, method);
      expect(signed).toMatchObject({ error: "", expires_s: 600 });
      expect(signed.urls.map((url) => new URL(url).pathname)).toEqual([CHUNK, MANIFEST].map((name) => `/cdn-cgi/local/r2/s3/gpu-rental-volumes/${volumeObjectKey(account.id, writable, name)}`));
      for (const url of signed.urls) {
        expect(new URL(url).searchParams.get("X-Amz-Expires")).toBe("600");
        expect(new URL(url).searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
      }
    }
  });

  it("signs GET for a read-only mount and refuses PUT", async () => {
    const { instanceId, readable } = await instanceWithVolumes();
    expect((await sign(host, instanceId, readable, "GET")).urls).toHaveLength(2);
    expect(await sign(host, instanceId, readable, "PUT")).toEqual(refusal(new RegExp(`^volume ${readable} is mounted read-only in instance ${instanceId}`)));
  });

  it("refuses a volume the instance does not mount, even the account's own", async () => {
    const { instanceId, unmounted } = await instanceWithVolumes();
    expect(await sign(host, instanceId, unmounted, "GET")).toEqual(refusal(new RegExp(`^volume ${unmounted} is not mounted in instance ${instanceId}$`)));
  });

  it("refuses another machine's agent for an instance of this one", async () => {
    const { instanceId, writable } = await instanceWithVolumes();
    expect(await sign(other, instanceId, writable, "GET")).toEqual(refusal(new RegExp(`^instance ${instanceId} has no container on this machine$`)));
  });

  it("signs for the final save of a destroy, and refuses once the host reported the container destroyed", async () => {
    const { account, instanceId, writable } = await instanceWithVolumes();
    host.report(instanceId, "running");
    expect((await callJson("DELETE", `/v1/instances/${instanceId}`, { key: account.key })).status).toBe(204);
    await host.waitForCommand(instanceId, "destroy");
    expect((await sign(host, instanceId, writable, "PUT")).error).toBe("");
    host.report(instanceId, "destroyed");
    await until(() => sign(host, instanceId, writable, "GET"), (signed) => signed.error !== "", "signing refused after the destroy");
    expect(await sign(host, instanceId, writable, "GET")).toEqual(refusal(/has no container on this machine$/));
  });
});

describe("commits and save failures, forwarded to the volume's account", () => {
  it("commits a stored save of a read-write mount as the volume's next version", async () => {
    const { account, instanceId, writable } = await instanceWithVolumes();
    const saved = await storeSave(account.id, writable, { "notes.txt": "hello" });
    expect(await commit(host, instanceId, writable, saved.manifest)).toMatchObject({ version: 1, error: "" });
    expect((await callJson<{ version: number; used_bytes: number }>("GET", `/v1/volumes/${writable}`, { key: account.key })).body).toMatchObject({ version: 1, used_bytes: 5 });
    // The account's own refusal comes back as the reason: another save from base version 0, which the volume has moved past.
    const stale = await storeSave(account.id, writable, { "notes.txt": "stale" });
    expect(await commit(host, instanceId, writable, stale.manifest, 0)).toMatchObject({ version: null, error: expect.stringMatching(/version/) });
  });

  it("refuses a commit for a read-only mount or from another machine, before the account is asked", async () => {
    const { account, instanceId, readable, writable } = await instanceWithVolumes();
    const saved = await storeSave(account.id, readable, { "x": "y" });
    expect(await commit(host, instanceId, readable, saved.manifest)).toMatchObject({ version: null, error: expect.stringMatching(/mounted read-only/) });
    expect(await commit(other, instanceId, writable, saved.manifest)).toMatchObject({ version: null, error: expect.stringMatching(/no container on this machine/) });
    expect((await callJson<{ version: number }>("GET", `/v1/volumes/${readable}`, { key: account.key })).body.version).toBe(0);
  });

  it("a save failure becomes the instance's status message", async () => {
    const { account, instanceId, writable } = await instanceWithVolumes();
    host.report(instanceId, "running");
    host.send({ type: "volume_save_failed", instance_id: instanceId, volume_id: writable, reason: "the content is 2.0 GB, over the volume's 1 GB" });
    await until(() => callJson<{ status_message: string }>("GET", `/v1/instances/${instanceId}`, { key: account.key }),
      (r) => r.body.status_message.includes("over the volume's 1 GB"), "the status message");
  });
});

describe("saveVolumes", () => {
  it("sends the agent a save command for a running instance, and refuses one not running or without a read-write volume", async () => {
    const { account, instanceId, writable } = await instanceWithVolumes();
    const machine = machineOf(env, host.machineId);
    expect(await machine.saveVolumes(instanceId, [])).toMatchObject({ ok: false, code: "not_running", message: expect.stringMatching(/not running yet/) });
    host.report(instanceId, "running");
    await until(async () => (await machine.saveVolumes(instanceId, [])).ok, (accepted) => accepted, "the save accepted");
    const command = await host.waitForCommand(instanceId, "save");
    expect(command.spec?.volumes?.find((mount) => !mount.read_only)?.volume_id).toBe(writable);
    const plain = await runningOn(host, account.key);
    expect(await machine.saveVolumes(plain, [])).toMatchObject({ ok: false, code: "conflict", message: `instance ${plain} has no read-write volume to save` });
    expect(await machine.saveVolumes("i-aaaaaaaaaaaaaaaa", [])).toMatchObject({ ok: false, code: "not_running" });
  });

  it("refuses while the instance's host is offline: the command would be lost", async () => {
    const away = await FakeAgent.online("volume-away-host", ["a100-80gb"]);
    const { key } = await newAccount();
    const volumeId = (await callJson<{ id: string }>("POST", "/v1/volumes", { key, body: { name: "away", size_gb: 1 } })).body.id;
    const instanceId = await runningOn(away, key, { gpu_model: "a100-80gb", volumes: [{ volume_id: volumeId }] });
    await away.leave();
    expect(await machineOf(env, away.machineId).saveVolumes(instanceId, [])).toEqual({ ok: false, code: "upstream_unavailable", message: `the host of instance ${instanceId} is offline` });
  });
});
