import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { volumeObjectKey } from "../../../protocol/volumes.ts";
import { call, callJson, newAccount, keyCredential } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { launchOn, runningOn } from "../../../test/support/workerd/instances.ts";
import { browser, signUp } from "../../../test/support/workerd/session-client.ts";
import { until } from "../../../test/support/workerd/poll.ts";
import { storedNames, storeSave } from "../../../test/support/workerd/volume-content.ts";

interface Volume {
  id: string; name: string; size_gb: number; used_bytes: number; stored_bytes: number; version: number;
  attachments: { instance_id: string; path: string; read_only: boolean }[]; saved_at: string | null; created_at: string;
  price_month_micros: number; delete_at: string | null;
}
type Answer<T> = { status: number; body: T & { error?: string; message?: string } };

let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("volume-routes-host", ["rtx4090", "rtx4090", "rtx4090", "rtx4090", "rtx4090", "rtx4090", "rtx4090", "rtx4090"]);
});

const create = (key: string, body: unknown) => callJson<Volume>("POST", "/v1/volumes", { key, body }) as Promise<Answer<Volume>>;
const get = (key: string, id: string) => callJson<Volume>("GET", `/v1/volumes/${id}`, { key }) as Promise<Answer<Volume>>;
const launch = (key: string, volumes: unknown) =>
  callJson<{ id: string; volumes: unknown }>("POST", "/v1/instances", { key, body: { gpu_model: "rtx4090", gpu_count: 1, template: "pytorch", volumes } });

function refused(answer: { status: number; body: unknown }, status: number, error: string, message: RegExp): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body).toEqual({ error, message: expect.stringMatching(message) });
}

describe("/v1/volumes", () => {
  it("creates, lists, reads by id and by name, renames and grows, deletes", async () => {
    const { key } = await newAccount();
    const made = await create(key, { name: "datasets", size_gb: 50 });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^vol_[a-z2-7]{16}$/), name: "datasets", size_gb: 50, used_bytes: 0, stored_bytes: 0, version: 0,
      attachments: [], saved_at: null, created_at: expect.any(String), price_month_micros: 0, delete_at: null,
    });
    const id = made.body.id;
    expect((await get(key, id)).body).toEqual(made.body);
    expect((await get(key, "datasets")).body).toEqual(made.body);
    const second = await create(key, { name: "weights", size_gb: 1 });
    expect((await callJson<{ items: Volume[] }>("GET", "/v1/volumes", { key })).body.items.map((v) => v.name)).toEqual(["datasets", "weights"]);

    const renamed = await callJson<Volume>("PATCH", `/v1/volumes/datasets`, { key, body: { name: "data", size_gb: 80 } });
    expect(renamed).toMatchObject({ status: 200, body: { id, name: "data", size_gb: 80 } });
    expect((await get(key, "datasets")).status).toBe(404);
    expect((await callJson("PATCH", `/v1/volumes/${id}`, { key, body: { size_gb: 80 } })).status).toBe(200);

    expect((await call("DELETE", `/v1/volumes/data`, { key })).status).toBe(204);
    refused(await get(key, id), 404, "not_found", new RegExp(`^no volume ${id} in this account`));
    refused(await callJson("DELETE", `/v1/volumes/${id}`, { key }), 404, "not_found", /^no volume/);
    expect((await callJson<{ items: Volume[] }>("GET", "/v1/volumes", { key })).body.items.map((v) => v.id)).toEqual([second.body.id]);
  });

  it("refuses bad names and sizes naming the field, a name in use with 409, and a smaller size", async () => {
    const { key } = await newAccount();
    const badNames = ["", "1data", "Data", "da_ta", "da.ta", "a".repeat(64), "-data"];
    for (const name of badNames) refused(await create(key, { name, size_gb: 1 }), 400, "invalid", /^name: must be 1 to 63 of a-z, 0-9 and -, starting with a letter/);
    expect((await create(key, { name: "a".repeat(63), size_gb: 1 })).status).toBe(201);
    for (const size_gb of [0, 10_001, 1.5, "5", null]) refused(await create(key, { name: "sized", size_gb }), 400, "invalid", /^size_gb: must be an integer from 1 to 10000/);
    refused(await create(key, { name: "sized" }), 400, "invalid", /^size_gb: is required/);
    refused(await create(key, { name: "sized", size_gb: 1, colour: "red" }), 400, "invalid", /^colour: unknown field/);
    expect((await create(key, { name: "sized", size_gb: 10_000 })).status).toBe(201);
    refused(await create(key, { name: "sized", size_gb: 1 }), 409, "conflict", /^name: the account already has a volume named sized/);

    expect((await create(key, { name: "other", size_gb: 10 })).status).toBe(201);
    refused(await callJson("PATCH", "/v1/volumes/other", { key, body: { size_gb: 9 } }), 400, "invalid", /^size_gb: a volume may only grow; other has 10 GB/);
    refused(await callJson("PATCH", "/v1/volumes/other", { key, body: { name: "sized" } }), 409, "conflict", /^name: the account already has a volume named sized/);
    refused(await callJson("PATCH", "/v1/volumes/other", { key, body: { name: "Bad" } }), 400, "invalid", /^name: /);
    refused(await callJson("PATCH", "/v1/volumes/other", { key, body: {} }), 400, "invalid", /must set name, size_gb or both/);
    expect((await get(key, "other")).body).toMatchObject({ name: "other", size_gb: 10 });
  });

  it("hides another account's volumes (404 by id and by name) and refuses a missing key", async () => {
    const owner = await newAccount();
    const stranger = await newAccount();
    const { body: volume } = await create(owner.key, { name: "private", size_gb: 1 });
    refused(await get(stranger.key, volume.id), 404, "not_found", /^no volume/);
    refused(await get(stranger.key, "private"), 404, "not_found", /^no volume/);
    for (const [method, path, body] of [["PATCH", "", { size_gb: 2 }], ["DELETE", "", undefined], ["POST", "/save", undefined], ["GET", "/snapshots", undefined], ["POST", "/snapshots", {}]] as const) {
      refused(await callJson(method, `/v1/volumes/${volume.id}${path}`, { key: stranger.key, body }), 404, "not_found", /^no volume/);
    }
    refused(await launch(stranger.key, [{ volume_id: volume.id }]), 400, "invalid", new RegExp(`^volumes\\[0\\]\\.volume_id: no volume ${volume.id} in this account`));
    expect((await callJson("GET", "/v1/volumes", {})).status).toBe(401);
    expect((await get(owner.key, volume.id)).body.size_gb).toBe(1);
  });

  it("takes snapshots, lists them newest first, deletes one; unknown snapshots are 404", async () => {
    const { key } = await newAccount();
    await create(key, { name: "snappy", size_gb: 1 });
    const first = await callJson<{ id: string }>("POST", "/v1/volumes/snappy/snapshots", { key });
    expect(first).toMatchObject({ status: 201, body: { id: expect.stringMatching(/^snap_[a-z2-7]{16}$/), name: "v0", version: 0, stored_bytes: 0 } });
    const second = await callJson<{ id: string }>("POST", "/v1/volumes/snappy/snapshots", { key, body: { name: "before-training" } });
    expect(second.body).toMatchObject({ name: "before-training", version: 0 });
    refused(await callJson("POST", "/v1/volumes/snappy/snapshots", { key, body: { name: "" } }), 400, "invalid", /^name: must be 1 to 100 characters/);
    const listed = await callJson<{ items: { id: string }[] }>("GET", "/v1/volumes/snappy/snapshots", { key });
    expect(listed.body.items.map((s) => s.id)).toEqual([second.body.id, first.body.id]);
    expect((await call("DELETE", `/v1/volumes/snappy/snapshots/${first.body.id}`, { key })).status).toBe(204);
    refused(await callJson("DELETE", `/v1/volumes/snappy/snapshots/${first.body.id}`, { key }), 404, "not_found", /^no snapshot snap_/);
    refused(await callJson("DELETE", "/v1/volumes/snappy/snapshots/snap_nope", { key }), 404, "not_found", /^no snapshot/);
    expect((await callJson<{ items: unknown[] }>("GET", "/v1/volumes/snappy/snapshots", { key })).body.items).toHaveLength(1);
  });
});

describe("/v1/volumes from a signed-in browser", () => {
  it("changes nothing for a page of another origin: create, rename, delete and a files PUT are 403, reads and this service's pages go through", async () => {
    const account = await signUp();
    const evil = browser(account.session, "https://evil.example");
    expect((await callJson("POST", "/v1/volumes", { headers: evil, body: { name: "stolen", size_gb: 1 } })).body).toMatchObject({ error: "forbidden" });
    expect((await callJson<{ items: unknown[] }>("GET", "/v1/volumes", { headers: browser(account.session) })).body.items).toEqual([]);

    expect((await callJson("POST", "/v1/volumes", { headers: browser(account.session), body: { name: "mine", size_gb: 1 } })).status).toBe(201);
    expect((await callJson("PATCH", "/v1/volumes/mine", { headers: evil, body: { name: "renamed" } })).body).toMatchObject({ error: "forbidden" });
    expect((await call("PUT", "/v1/volumes/mine/files?path=/", { headers: { ...evil, "content-type": "application/x-tar" }, body: new Uint8Array(1024) })).status).toBe(403);
    expect((await call("DELETE", "/v1/volumes/mine", { headers: evil })).status).toBe(403);
    expect((await callJson("GET", "/v1/volumes/mine", { headers: evil })).body).toMatchObject({ name: "mine", version: 0 });
  });
});

describe("POST /v1/volumes from_snapshot", () => {
  it("makes a volume holding the snapshot's content at version 1, of the snapshot's volume's size unless given", async () => {
    const { id: accountId, key } = await newAccount();
    const { body: source } = await create(key, { name: "source", size_gb: 3 });
    const saved = await storeSave(accountId, source.id, { "notes.txt": "kept in the snapshot" });
    await env.ACCOUNTS.getByName(accountId).commitVolumeFiles(keyCredential(key), { volume_id: source.id, instance_id: null, base_version: 0, manifest: saved.manifest, bytes_sent: 20 });
    const snapshot = await callJson<{ id: string }>("POST", "/v1/volumes/source/snapshots", { key });
    const again = await callJson<{ id: string }>("POST", "/v1/volumes/source/snapshots", { key });
    // The volume emptied after: its snapshots still hold what they held.
    await env.ACCOUNTS.getByName(accountId).commitVolumeFiles(keyCredential(key), { volume_id: source.id, instance_id: null, base_version: 1, manifest: (await storeSave(accountId, source.id, {})).manifest, bytes_sent: 0 });

    const copy = await create(key, { name: "copy", from_snapshot: snapshot.body.id });
    expect(copy).toMatchObject({ status: 201, body: { name: "copy", size_gb: 3, version: 1, used_bytes: 20, stored_bytes: 20 } });
    expect(await storedNames(accountId, copy.body.id)).toEqual([...saved.hashes.map((hash) => `chunks/${hash}`), saved.manifest].sort());
    expect((await create(key, { name: "bigger", size_gb: 5, from_snapshot: snapshot.body.id })).body).toMatchObject({ size_gb: 5, version: 1 });
    expect((await create(key, { name: "kept", from_snapshot: again.body.id })).body).toMatchObject({ version: 1, used_bytes: 20 });
    expect((await get(key, "source")).body).toMatchObject({ version: 2, used_bytes: 0 });
  });

  it("refuses an unknown or another account's snapshot (404), a name in use (409) and a size below its content (400), copying nothing", async () => {
    const owner = await newAccount();
    const stranger = await newAccount();
    await create(owner.key, { name: "mine", size_gb: 1 });
    const snapshot = await callJson<{ id: string }>("POST", "/v1/volumes/mine/snapshots", { key: owner.key });
    refused(await create(stranger.key, { name: "theirs", from_snapshot: snapshot.body.id }), 404, "not_found", new RegExp(`^no snapshot ${snapshot.body.id} in this account`));
    refused(await create(owner.key, { name: "other", from_snapshot: "snap_aaaaaaaaaaaaaaaa" }), 404, "not_found", /^no snapshot snap_aaaaaaaaaaaaaaaa/);
    refused(await create(owner.key, { name: "mine", from_snapshot: snapshot.body.id }), 409, "conflict", /^name: the account already has a volume named mine/);
    expect((await callJson<{ items: unknown[] }>("GET", "/v1/volumes", { key: stranger.key })).body.items).toEqual([]);
  });
});

describe("launch with volumes", () => {
  it("attaches them in the spec and the instance object; a second read-write is 409 naming the holder, read-only ones are unlimited", async () => {
    const { id: accountId, key } = await newAccount();
    const { body: volume } = await create(key, { name: "work", size_gb: 2 });
    const saved = await storeSave(accountId, volume.id, { "a.txt": "hello" });
    const committed = await env.ACCOUNTS.getByName(accountId).commitVolumeFiles(keyCredential(key), { volume_id: volume.id, instance_id: null, base_version: 0, manifest: saved.manifest, bytes_sent: 5 });
    expect(committed).toEqual({ ok: true, version: 1, changed: true });

    const writer = await launchOn(agent, key, { volumes: [{ volume_id: "work" }] });
    const spec = (await agent.waitForCommand(writer, "create")).spec!;
    expect(spec.volumes).toEqual([{ volume_id: volume.id, path: "/workspace", read_only: false, version: 1, manifest: saved.manifest, max_bytes: 2e9 }]);
    expect((await callJson<{ volumes: unknown }>("GET", `/v1/instances/${writer}`, { key })).body.volumes).toEqual([{ volume_id: volume.id, path: "/workspace", read_only: false }]);

    expect(await env.ACCOUNTS.getByName(accountId).volumeContent(keyCredential(key), "work")).toEqual({
      ok: true, content: { account_id: accountId, volume_id: volume.id, version: 1, manifest: saved.manifest, max_bytes: 2e9, attached_read_write: writer },
    });
    refused(await launch(key, [{ volume_id: volume.id, path: "/data" }]), 409, "conflict", new RegExp(`^volumes\\[0\\]: volume work is attached read-write to instance ${writer}`));
    const reader = await launchOn(agent, key, { volumes: [{ volume_id: "work", path: "/data", read_only: true }] });
    const readerToo = await launchOn(agent, key, { volumes: [{ volume_id: volume.id, read_only: true }] });
    expect((await agent.waitForCommand(reader, "create")).spec!.volumes).toEqual([{ volume_id: volume.id, path: "/data", read_only: true, version: 1, manifest: saved.manifest, max_bytes: 2e9 }]);
    expect((await get(key, "work")).body.attachments).toEqual(
      [{ instance_id: writer, path: "/workspace", read_only: false }, { instance_id: reader, path: "/data", read_only: true }, { instance_id: readerToo, path: "/workspace", read_only: true }]
        .sort((a, b) => a.instance_id.localeCompare(b.instance_id)),
    );
    const without = await launchOn(agent, key);
    expect((await agent.waitForCommand(without, "create")).spec!.volumes).toBeUndefined();
    expect((await callJson<{ volumes: unknown }>("GET", `/v1/instances/${without}`, { key })).body.volumes).toEqual([]);
    for (const id of [writer, reader, readerToo, without]) await call("DELETE", `/v1/instances/${id}`, { key });
  });

  it("refuses bad volume lists naming `volumes`, keeping no instance and no attachment", async () => {
    const { key } = await newAccount();
    const { body: volume } = await create(key, { name: "rules", size_gb: 1 });
    await create(key, { name: "more", size_gb: 1 });
    const five = ["/a", "/b", "/c", "/d", "/e"].map((path) => ({ volume_id: "rules", path, read_only: true }));
    const cases: [unknown, RegExp][] = [
      [five, /^volumes: at most 4 volumes/],
      [[{ volume_id: "rules", path: "data" }], /^volumes\.0\.path: must be an absolute path/],
      [[{ volume_id: "rules", path: "/" }], /^volumes\.0\.path: must be an absolute path/],
      [[{ volume_id: "rules", path: "/data/" }], /^volumes\.0\.path: must be an absolute path/],
      [[{ volume_id: "rules", path: "/data/../etc" }], /^volumes\.0\.path: must be an absolute path/],
      [[{ volume_id: "rules", path: "/a b" }], /^volumes\.0\.path: must be an absolute path/],
      [[{ volume_id: "rules", path: "/proc" }], /^volumes\.0\.path: cannot be \/proc, \/sys, \/dev or under them/],
      [[{ volume_id: "rules", path: "/sys/fs" }], /^volumes\.0\.path: cannot be/],
      [[{ volume_id: "rules", path: "/dev/shm" }], /^volumes\.0\.path: cannot be/],
      [[{ volume_id: "rules", path: "/data" }, { volume_id: "more", path: "/data" }], /^volumes\.1\.path: \/data is also volumes\.0's path/],
      [[{ volume_id: "rules" }, { volume_id: "more" }], /^volumes\.1\.path: \/workspace is also volumes\.0's path/],
      [[{ volume_id: "rules", path: "/a" }, { volume_id: "rules", path: "/b", read_only: true }], /^volumes: volume rules is named twice/],
      [[{ volume_id: "rules", path: "/a" }, { volume_id: volume.id, path: "/b" }], new RegExp(`^volumes: volume rules \\(${volume.id}\\) is named twice`)],
      [[{ volume_id: "nope" }], /^volumes\[0\]\.volume_id: no volume nope in this account/],
      [[{ volume_id: "rules", read_only: "yes" }], /^volumes\.0\.read_only: must be true or false/],
      [[{ volume_id: "rules", size: 3 }], /^volumes\.0: unknown field|^size: unknown field/],
      ["rules", /^volumes: /],
    ];
    for (const [volumes, message] of cases) refused(await launch(key, volumes), 400, "invalid", message);
    expect((await callJson<{ items: unknown[] }>("GET", "/v1/instances", { key })).body.items).toEqual([]);
    expect((await get(key, "rules")).body.attachments).toEqual([]);
  });

  it("frees the volume when the host reports the container destroyed: delete is 409 naming the instance until then, and removes every stored object", async () => {
    const { id: accountId, key } = await newAccount();
    const { body: volume } = await create(key, { name: "keep", size_gb: 1 });
    const saved = await storeSave(accountId, volume.id, { "x.bin": "xx", "y.bin": "yy" });
    await env.ACCOUNTS.getByName(accountId).commitVolumeFiles(keyCredential(key), { volume_id: volume.id, instance_id: null, base_version: 0, manifest: saved.manifest, bytes_sent: 4 });
    // An object no version names (a save that died before its commit) goes with the volume too.
    await env.VOLUMES.put(volumeObjectKey(accountId, volume.id, "manifests/abandoned-save-0000.json"), "{}");
    const instance = await launchOn(agent, key, { volumes: [{ volume_id: "keep", read_only: true }] });

    refused(await callJson("DELETE", "/v1/volumes/keep", { key }), 409, "conflict", new RegExp(`^volume keep is attached to instance ${instance}; destroy that instance first`));
    expect((await call("DELETE", `/v1/instances/${instance}`, { key })).status).toBe(204);
    refused(await callJson("DELETE", "/v1/volumes/keep", { key }), 409, "conflict",
      new RegExp(`^volume keep is attached to instance ${instance}; wait until its host has removed the container: that instance is destroyed`));
    await agent.waitForCommand(instance, "destroy");
    agent.report(instance, "destroyed");
    await until(() => get(key, "keep"), (answer) => answer.body.attachments.length === 0, "the attachment to end");
    expect((await callJson<{ volumes: unknown }>("GET", `/v1/instances/${instance}`, { key })).body.volumes).toEqual([{ volume_id: volume.id, path: "/workspace", read_only: true }]);

    expect(await storedNames(accountId, volume.id)).toHaveLength(4);
    expect((await call("DELETE", "/v1/volumes/keep", { key })).status).toBe(204);
    expect(await storedNames(accountId, volume.id)).toEqual([]);
  });

  it("delete names a live holder before one destroyed and waiting for its host: destroying it is what is left to do", async () => {
    const { key } = await newAccount();
    await create(key, { name: "shared", size_gb: 1 });
    const holders = [await launchOn(agent, key, { volumes: [{ volume_id: "shared", read_only: true }] }),
      await launchOn(agent, key, { volumes: [{ volume_id: "shared", read_only: true }] })].sort();
    // The one whose id sorts first is destroyed, so a refusal naming attachments in id order names it.
    const [first, second] = holders as [string, string];
    expect((await call("DELETE", `/v1/instances/${first}`, { key })).status).toBe(204);
    await agent.waitForCommand(first, "destroy");

    refused(await callJson("DELETE", "/v1/volumes/shared", { key }), 409, "conflict", new RegExp(`^volume shared is attached to instance ${second}; destroy that instance first`));
    agent.report(first, "destroyed");
    expect((await call("DELETE", `/v1/instances/${second}`, { key })).status).toBe(204);
    await agent.waitForCommand(second, "destroy");
    agent.report(second, "destroyed");
    await until(() => get(key, "shared"), (answer) => answer.body.attachments.length === 0, "the attachments to end");
    expect((await call("DELETE", "/v1/volumes/shared", { key })).status).toBe(204);
  });

  it("a start refused for its host's GPUs says the volumes can be launched elsewhere", async () => {
    const host = await FakeAgent.online("volume-busy-host", ["h100-80gb"]);
    const { key } = await newAccount();
    await create(key, { name: "portable", size_gb: 1 });
    const body = { gpu_model: "h100-80gb" };
    const withVolume = await runningOn(host, key, { ...body, volumes: [{ volume_id: "portable" }] });
    expect((await call("POST", `/v1/instances/${withVolume}/stop`, { key })).status).toBe(204);
    const other = await launchOn(host, key, body);
    refused(await callJson("POST", `/v1/instances/${withVolume}/start`, { key }), 409, "gpus_busy",
      /; its volumes hold its data: destroy it \(its host saves them first\) and launch again with the same volumes to run elsewhere$/);
    expect((await call("POST", `/v1/instances/${other}/stop`, { key })).status).toBe(204);
    const plain = await launchOn(host, key, body);
    const busy = await callJson<{ message: string }>("POST", `/v1/instances/${other}/start`, { key });
    expect(busy.status).toBe(409);
    expect(busy.body.message).not.toContain("volumes");
    for (const id of [withVolume, other, plain]) await call("DELETE", `/v1/instances/${id}`, { key });
    await host.leave();
  });

  it("ends the attachments of a launch no host takes", async () => {
    const { key } = await newAccount();
    await create(key, { name: "lonely", size_gb: 1 });
    refused(await callJson("POST", "/v1/instances", { key, body: { gpu_model: "a100-80gb", gpu_count: 1, template: "pytorch", volumes: [{ volume_id: "lonely" }] } }),
      409, "no_capacity", /^no machine has 1 free a100-80gb/);
    expect((await get(key, "lonely")).body.attachments).toEqual([]);
    expect((await create(key, { name: "lonely", size_gb: 1 })).status).toBe(409);
  });
});

describe("POST /v1/volumes/{id}/save", () => {
  it("asks the host of the running read-write instance to save (202); 409 not_running otherwise", async () => {
    const { key } = await newAccount();
    await create(key, { name: "saver", size_gb: 1 });
    refused(await callJson("POST", "/v1/volumes/saver/save", { key }), 409, "not_running", /^volume saver can be saved only from a running instance that has it attached read-write; no instance has it/);
    const reader = await runningOn(agent, key, { volumes: [{ volume_id: "saver", read_only: true }] });
    refused(await callJson("POST", "/v1/volumes/saver/save", { key }), 409, "not_running", /no instance has it attached read-write/);
    const writer = await launchOn(agent, key, { volumes: [{ volume_id: "saver", path: "/w" }] });
    refused(await callJson("POST", "/v1/volumes/saver/save", { key }), 409, "not_running", new RegExp(`its instance ${writer} is creating`));
    agent.report(writer, "running");
    await until(() => callJson<{ status: string }>("GET", `/v1/instances/${writer}`, { key }), (r) => r.body.status === "running", "running");
    expect((await call("POST", "/v1/volumes/saver/save", { key })).status).toBe(202);
    await agent.waitForCommand(writer, "save");
    refused(await callJson("POST", "/v1/volumes/nothing/save", { key }), 404, "not_found", /^no volume nothing/);
    for (const id of [reader, writer]) await call("DELETE", `/v1/instances/${id}`, { key });
  });
});
