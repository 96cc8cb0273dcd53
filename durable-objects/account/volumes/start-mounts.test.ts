// A start gives the host its instance's volumes as they are now, not as they were at launch: a
// read-only mount the latest version (saved meanwhile through the files route), a grown volume its
// new size, in the spec the start command carries (and the MachineDO keeps for the commands after);
// and a volume grown while the instance runs reaches its host in the commands after the growth.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { ServerMessage } from "../../../protocol/index.ts";
import { call, callJson, newAccount, keyCredential } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";
import { until } from "../../../test/support/workerd/poll.ts";
import { storeSave } from "../../../test/support/workerd/volume-content.ts";

type Command = Extract<ServerMessage, { type: "command" }>;

let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("start-mounts-host", ["rtx4090", "rtx4090"]);
});

describe("a start's volumes", () => {
  it("carry the latest version of a read-only volume and the new size of a grown one", async () => {
    const { id: accountId, key } = await newAccount();
    const account = env.ACCOUNTS.getByName(accountId);
    const volume = async (name: string) => (await callJson<{ id: string }>("POST", "/v1/volumes", { key, body: { name, size_gb: 1 } })).body.id;
    const [work, reference] = [await volume("work"), await volume("reference")];
    const saveReference = async (base: number, text: string) => {
      const { manifest } = await storeSave(accountId, reference, { "notes.txt": text });
      expect(await account.commitVolumeFiles(keyCredential(key), { volume_id: reference, instance_id: null, base_version: base, manifest, bytes_sent: 0 })).toMatchObject({ version: base + 1 });
      return manifest;
    };
    const first = await saveReference(0, "first");
    const id = await runningOn(agent, key, { volumes: [{ volume_id: work, path: "/workspace" }, { volume_id: reference, path: "/ref", read_only: true }] });
    const created = agent.commands(id).find((c) => c.op === "create")!;
    expect(created.spec!.volumes).toEqual([
      { volume_id: work, path: "/workspace", read_only: false, version: 0, manifest: null, max_bytes: 1e9 },
      { volume_id: reference, path: "/ref", read_only: true, version: 1, manifest: first, max_bytes: 1e9 },
    ]);

    expect((await call("POST", `/v1/instances/${id}/stop`, { key })).status).toBe(204);
    agent.report(id, "stopped");
    const second = await saveReference(1, "second");
    expect((await callJson("PATCH", `/v1/volumes/${work}`, { key, body: { size_gb: 3 } })).status).toBe(200);
    await until(() => callJson<{ status: string }>("GET", `/v1/instances/${id}`, { key }), (r) => r.body.status === "stopped", "stopped");

    expect((await call("POST", `/v1/instances/${id}/start`, { key })).status).toBe(204);
    const started = await agent.waitFor((m): m is Command => m.type === "command" && m.instance_id === id && m.op === "start");
    const mounts = Object.fromEntries(started.spec!.volumes!.map((mount) => [mount.volume_id, mount]));
    expect(mounts[reference]).toEqual({ volume_id: reference, path: "/ref", read_only: true, version: 2, manifest: second, max_bytes: 1e9 });
    expect(mounts[work]).toEqual({ volume_id: work, path: "/workspace", read_only: false, version: 0, manifest: null, max_bytes: 3e9 });
    // The stored spec changed too: the next command for the instance (here its stop) carries the same mounts.
    agent.report(id, "running");
    await until(() => callJson<{ status: string }>("GET", `/v1/instances/${id}`, { key }), (r) => r.body.status === "running", "running");
    expect((await call("POST", `/v1/instances/${id}/stop`, { key })).status).toBe(204);
    const stops = () => agent.commands(id).filter((c) => c.op === "stop");
    await agent.waitFor(() => stops().length === 2);
    expect(stops()[1]!.spec!.volumes).toEqual(started.spec!.volumes);
  });
  it("carry a volume grown while the instance runs to its host: the save now and the stop after have its new size", async () => {
    const { key } = await newAccount();
    const work = (await callJson<{ id: string }>("POST", "/v1/volumes", { key, body: { name: "growing", size_gb: 1 } })).body.id;
    const id = await runningOn(agent, key, { volumes: [{ volume_id: work, path: "/workspace" }] });
    expect((await callJson("PATCH", `/v1/volumes/${work}`, { key, body: { size_gb: 4 } })).status).toBe(200);

    expect((await call("POST", `/v1/volumes/${work}/save`, { key })).status).toBe(202);
    const saved = await agent.waitFor((m): m is Command => m.type === "command" && m.instance_id === id && m.op === "save");
    expect(saved.spec!.volumes).toEqual([{ volume_id: work, path: "/workspace", read_only: false, version: 0, manifest: null, max_bytes: 4e9 }]);

    // Grown again, with no save asked: the host's next command (its stop) carries the size all the same.
    expect((await callJson("PATCH", `/v1/volumes/${work}`, { key, body: { size_gb: 6 } })).status).toBe(200);
    expect((await call("POST", `/v1/instances/${id}/stop`, { key })).status).toBe(204);
    const stopped = await agent.waitFor((m): m is Command => m.type === "command" && m.instance_id === id && m.op === "stop");
    expect(stopped.spec!.volumes![0]!.max_bytes).toBe(6e9);
  });
});
