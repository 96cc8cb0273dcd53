// Commits of volume versions against miniflare's R2: what a version needs stored, the base version
// checked in the commit's own transaction, and the objects a version or a snapshot no longer keeps
// deleted from the bucket.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { chunkName, volumeObjectKey, VOLUME_CHUNK_BYTES } from "../../../protocol/volumes.ts";
import { call, callJson, newAccount, keyCredential } from "../../../test/support/workerd/api-client.ts";
import { FakeAgent } from "../../../test/support/workerd/fake-agent.ts";
import { runningOn } from "../../../test/support/workerd/instances.ts";
import { until } from "../../../test/support/workerd/poll.ts";
import { storedNames, storeSave } from "../../../test/support/workerd/volume-content.ts";
import type { VolumeCommitRequest } from "../../contracts/volumes.ts";
import type { AccountDO } from "../account-do.ts";
import { sqlFor } from "../../sql.ts";
import type { Volumes } from "./volumes.ts";

let agent: FakeAgent;

beforeAll(async () => {
  agent = await FakeAgent.online("volume-commits-host", ["rtx4090", "rtx4090", "rtx4090", "rtx4090"]);
});

interface Volume { id: string; version: number; used_bytes: number; stored_bytes: number; saved_at: string | null }

/** An account with one volume of `sizeGb`. */
async function volumeOf(sizeGb = 1) {
  const { id: accountId, key } = await newAccount();
  const created = await callJson<Volume>("POST", "/v1/volumes", { key, body: { name: "vol", size_gb: sizeGb } });
  const account = env.ACCOUNTS.getByName(accountId);
  const volume = () => callJson<Volume>("GET", "/v1/volumes/vol", { key }).then((answer) => answer.body);
  const files = (manifest: string, base_version: number, bytes_sent = 0): Promise<unknown> =>
    account.commitVolumeFiles(keyCredential(key), { volume_id: created.body.id, instance_id: null, base_version, manifest, bytes_sent });
  const save = (files: Record<string, string | Uint8Array>, skip: string[] = []) => storeSave(accountId, created.body.id, files, skip);
  const names = () => storedNames(accountId, created.body.id);
  return { accountId, key, account, id: created.body.id, volume, files, save, names };
}

describe("volume commits", () => {
  it("make version 1, 2… from saves whose every chunk is stored; an unchanged save makes none and its manifest goes", async () => {
    const v = await volumeOf();
    const first = await v.save({ "a.txt": "alpha", "b.txt": "bravo" });
    expect(await v.files(first.manifest, 0, 10)).toEqual({ ok: true, version: 1, changed: true });
    expect(await v.volume()).toMatchObject({ version: 1, used_bytes: 10, stored_bytes: 10, saved_at: expect.any(String) });

    const same = await v.save({ "a.txt": "alpha", "b.txt": "bravo" });
    expect(await v.files(same.manifest, 1)).toEqual({ ok: true, version: 1, changed: false });
    expect(await v.names()).not.toContain(same.manifest);
    expect(await v.names()).toContain(first.manifest);

    const second = await v.save({ "a.txt": "alpha", "b.txt": "bravo!", "c.txt": "" });
    expect(await v.files(second.manifest, 1)).toEqual({ ok: true, version: 2, changed: true });
    expect(await v.volume()).toMatchObject({ version: 2, used_bytes: 11, stored_bytes: 11 });
  });

  it("refuse a save with a chunk missing or of the wrong size, a manifest that is not one, and content over size_gb; the last version stays", async () => {
    const v = await volumeOf();
    const good = await v.save({ "keep.txt": "kept" });
    await v.files(good.manifest, 0);

    const partial = await v.save({ "x.txt": "one", "y.txt": "two" }, []);
    await env.VOLUMES.delete(volumeObjectKey(v.accountId, v.id, chunkName(partial.hashes[1]!)));
    expect(await v.files(partial.manifest, 1)).toEqual({ ok: false, code: "invalid", message: `manifest: chunk ${partial.hashes[1]} is not stored; every chunk must be uploaded before the commit` });

    const wrongSize = await v.save({ "z.txt": "three" });
    await env.VOLUMES.put(volumeObjectKey(v.accountId, v.id, chunkName(wrongSize.hashes[0]!)), "3");
    expect(await v.files(wrongSize.manifest, 1)).toMatchObject({ ok: false, code: "invalid", message: `manifest: chunk ${wrongSize.hashes[0]} is stored with 1 bytes, not the 5 it names` });

    // 1 GB and one byte, named with chunks that were never uploaded: the size is refused before any chunk is looked for.
    const size = 1e9 + 1;
    const chunks = Array.from({ length: Math.ceil(size / VOLUME_CHUNK_BYTES) }, (_, i) => i.toString(16).padStart(64, "0"));
    await env.VOLUMES.put(volumeObjectKey(v.accountId, v.id, "manifests/too-big-0000000000.json"),
      JSON.stringify({ format: 1, entries: [{ type: "file", path: "big.bin", mode: 0o644, mtime_ms: 0, size, chunks }] }));
    expect(await v.files("manifests/too-big-0000000000.json", 1)).toEqual({
      ok: false, code: "invalid", message: "manifest: its content is 1000000001 bytes, over the volume's size_gb (1000000000 bytes); the last version stays",
    });

    await env.VOLUMES.put(volumeObjectKey(v.accountId, v.id, "manifests/not-json-00000000000.json"), "{");
    expect(await v.files("manifests/not-json-00000000000.json", 1)).toMatchObject({ ok: false, code: "invalid", message: "manifest: manifests/not-json-00000000000.json is not JSON" });
    await env.VOLUMES.put(volumeObjectKey(v.accountId, v.id, "manifests/not-manifest-000000.json"), JSON.stringify({ format: 2, entries: [] }));
    expect(await v.files("manifests/not-manifest-000000.json", 1)).toMatchObject({ ok: false, code: "invalid", message: expect.stringMatching(/^manifest: manifests\/not-manifest-000000\.json is not a volume manifest \(format: /) });
    expect(await v.files("manifests/never-stored-000000.json", 1)).toMatchObject({ ok: false, code: "invalid", message: "manifest: manifests/never-stored-000000.json is not stored in the volume" });
    expect(await v.files(`chunks/${good.hashes[0]}`, 1)).toMatchObject({ ok: false, code: "invalid", message: expect.stringMatching(/^manifest: must be a manifest's name/) });
    const late = await v.save({ "late.txt": "late" });
    expect(await v.files(late.manifest, 0)).toMatchObject({ ok: false, code: "conflict", message: "base_version: volume vol is at version 1, not 0; this save is not committed" });
    expect(await v.account.commitVolumeFiles(keyCredential(v.key), { volume_id: "vol_aaaaaaaaaaaaaaaa", instance_id: null, base_version: 0, manifest: good.manifest, bytes_sent: 0 }))
      .toMatchObject({ ok: false, code: "not_found" });

    expect(await v.volume()).toMatchObject({ version: 1, used_bytes: 4 });
  });

  it("commit one of two saves from the same base and refuse the other: the base is checked again in the commit's transaction", async () => {
    const v = await volumeOf();
    // The first names 200 chunks to check, long enough for the second to pass the checks made before
    // the volume's lock; the transaction after it refuses the second all the same.
    const one = await v.save(Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}.txt`, `from one ${i}`])));
    const two = await v.save({ "f.txt": "from two" });
    const answers = await Promise.all([v.files(one.manifest, 0), v.files(two.manifest, 0)]);
    expect(answers.filter((answer) => (answer as { ok: boolean }).ok)).toEqual([{ ok: true, version: 1, changed: true }]);
    expect(answers.find((answer) => !(answer as { ok: boolean }).ok)).toEqual({
      ok: false, code: "conflict", message: "base_version: volume vol is at version 1, not 0; this save is not committed",
    });
    expect((await v.volume()).version).toBe(1);
  });

  it("answer a save sent again after its commit (the answer lost on the way) with the version it made, at once or racing itself", async () => {
    const v = await volumeOf();
    const save = await v.save({ "a.txt": "alpha" });
    expect(await Promise.all([v.files(save.manifest, 0), v.files(save.manifest, 0)])).toEqual([
      { ok: true, version: 1, changed: true }, { ok: true, version: 1, changed: true },
    ]);
    expect(await v.files(save.manifest, 0)).toEqual({ ok: true, version: 1, changed: true });
    const other = await v.save({ "a.txt": "bravo" });
    expect(await v.files(other.manifest, 0)).toMatchObject({ ok: false, code: "conflict" });
    expect((await v.volume()).version).toBe(1);
  });

  it("free an old version's unique chunks and manifest, but keep what a snapshot names until it is deleted", async () => {
    const v = await volumeOf();
    const v1 = await v.save({ "shared.txt": "same everywhere", "only.txt": "version one" });
    await v.files(v1.manifest, 0);
    const snapshot = await callJson<{ id: string; stored_bytes: number }>("POST", "/v1/volumes/vol/snapshots", { key: v.key });
    expect(snapshot.body.stored_bytes).toBe(26);
    const v2 = await v.save({ "shared.txt": "same everywhere", "only.txt": "version two!" });
    await v.files(v2.manifest, 1);
    const v3 = await v.save({ "shared.txt": "same everywhere", "only.txt": "version three" });
    await v.files(v3.manifest, 2);

    const [shared, onlyV1] = [v1.hashes[1]!, v1.hashes[0]!];
    const expected = (...names: string[]) => names.sort();
    expect(await v.names()).toEqual(expected(chunkName(shared), chunkName(onlyV1), chunkName(v3.hashes[0]!), v1.manifest, v3.manifest));
    expect(await v.volume()).toMatchObject({ version: 3, used_bytes: 28, stored_bytes: 15 + 11 + 13 });

    expect((await call("DELETE", `/v1/volumes/vol/snapshots/${snapshot.body.id}`, { key: v.key })).status).toBe(204);
    expect(await v.names()).toEqual(expected(chunkName(shared), chunkName(v3.hashes[0]!), v3.manifest));
    expect((await v.volume()).stored_bytes).toBe(28);
  });

  it("a host's commit comes from its read-write instance alone, with an event and volume.saved; the files route waits for it to be destroyed", async () => {
    const v = await volumeOf();
    // Recorded for the endpoint whether or not its delivery gets through (nothing answers at example.com).
    const hook = await callJson<{ id: string }>("POST", "/v1/webhooks", { key: v.key, body: { url: "https://hooks.example.com/volumes", events: ["volume.saved", "volume.save_failed"] } });
    const writer = await runningOn(agent, v.key, { volumes: [{ volume_id: "vol" }] });
    const reader = await runningOn(agent, v.key, { volumes: [{ volume_id: "vol", read_only: true }] });
    const saved = await v.save({ "model.bin": "weights" });
    const host = (instance_id: string, base_version = 0): Promise<unknown> =>
      v.account.commitVolumeVersion({ volume_id: v.id, instance_id, base_version, manifest: saved.manifest, bytes_sent: 1_234_567 } satisfies VolumeCommitRequest);

    expect(await host(reader)).toEqual({ ok: false, code: "conflict", message: `instance ${reader} does not hold volume vol read-write` });
    expect(await v.files(saved.manifest, 0)).toEqual({ ok: false, code: "conflict", message: `volume vol is attached read-write to instance ${writer}: only that instance writes it until it is destroyed` });
    expect(await host(writer)).toEqual({ ok: true, version: 1, changed: true });
    const events = await callJson<{ items: { message: string }[] }>("GET", `/v1/instances/${writer}/events`, { key: v.key });
    expect(events.body.items[0]!.message).toBe("Volume data saved as version 1: 1.2 MB sent (volume vol)");

    await v.account.volumeSaveFailed({ volume_id: v.id, instance_id: writer, reason: "its content is 1.2 GB, over size_gb 1" });
    const failed = await callJson<{ status_message: string }>("GET", `/v1/instances/${writer}`, { key: v.key });
    expect(failed.body.status_message).toBe("volume vol not saved: its content is 1.2 GB, over size_gb 1");
    const afterFailure = await callJson<{ items: { message: string }[] }>("GET", `/v1/instances/${writer}/events`, { key: v.key });
    expect(afterFailure.body.items[0]!.message).toBe("Volume vol not saved: its content is 1.2 GB, over size_gb 1; version 1 stays the latest");
    const deliveries = await callJson<{ items: { type: string }[] }>("GET", `/v1/webhooks/${hook.body.id}/deliveries`, { key: v.key });
    expect(deliveries.body.items.map((d) => d.type).sort()).toEqual(["volume.save_failed", "volume.saved"]);

    for (const id of [writer, reader]) {
      await call("DELETE", `/v1/instances/${id}`, { key: v.key });
      await agent.waitForCommand(id, "destroy");
      agent.report(id, "destroyed");
    }
    await until(() => callJson<{ attachments: unknown[] }>("GET", "/v1/volumes/vol", { key: v.key }), (r) => r.body.attachments.length === 0, "detached");
    const next = await v.save({ "model.bin": "weights v2" });
    expect(await v.files(next.manifest, 1)).toEqual({ ok: true, version: 2, changed: true });
    expect(await host(writer, 2)).toMatchObject({ ok: false, code: "conflict" });
  });

  it("delete on the alarm what was freed but not yet deleted (an object reset between the commit and its collection)", async () => {
    const v = await volumeOf();
    const orphan = await v.save({ "left.txt": "left behind" });
    await runInDurableObject(v.account, (account: AccountDO, state) => {
      const { garbage } = (account as unknown as { volumes: Volumes }).volumes;
      state.storage.transactionSync(() => garbage.queue(v.id, [orphan.manifest, chunkName(orphan.hashes[0]!)].map((name) => volumeObjectKey(v.accountId, v.id, name))));
    });
    expect(await v.names()).toHaveLength(2);
    await runDurableObjectAlarm(v.account);
    expect(await v.names()).toEqual([]);
    expect(await runInDurableObject(v.account, (_, state) => sqlFor(state.storage)`SELECT key FROM volume_garbage`)).toEqual([]);
  });

  it("create a volume from content copied under its new id at version 1, or refuse and delete what was copied", async () => {
    const { id: accountId, key } = await newAccount();
    const account = env.ACCOUNTS.getByName(accountId);
    const copied = await storeSave(accountId, "vol_copiedcopiedcopi", { "data.csv": "1,2,3" });
    const made = await account.createVolume(keyCredential(key), { name: "copy", size_gb: 1, id: "vol_copiedcopiedcopi", from: { manifest: copied.manifest, version: 7 } });
    expect(made).toMatchObject({ ok: true, volume: { id: "vol_copiedcopiedcopi", name: "copy", version: 1, used_bytes: 5, stored_bytes: 5 } });

    const broken = await storeSave(accountId, "vol_brokenbrokenbrok", { "a": "a", "b": "b" }, []);
    await env.VOLUMES.delete(volumeObjectKey(accountId, "vol_brokenbrokenbrok", chunkName(broken.hashes[0]!)));
    expect(await account.createVolume(keyCredential(key), { name: "broken", size_gb: 1, id: "vol_brokenbrokenbrok", from: { manifest: broken.manifest, version: 1 } }))
      .toMatchObject({ ok: false, code: "invalid", message: expect.stringMatching(/^manifest: chunk .* is not stored/) });
    expect(await storedNames(accountId, "vol_brokenbrokenbrok")).toEqual([]);
    expect(await account.createVolume(keyCredential(key), { name: "copy", size_gb: 1, id: "vol_othercopyotherco", from: { manifest: copied.manifest, version: 7 } }))
      .toMatchObject({ ok: false, code: "conflict", message: "name: the account already has a volume named copy" });
    expect(await account.createVolume(keyCredential(key), { name: "again", size_gb: 1, id: "vol_copiedcopiedcopi", from: { manifest: copied.manifest, version: 7 } }))
      .toMatchObject({ ok: false, code: "conflict", message: "id: the account already has a volume vol_copiedcopiedcopi" });
    expect(await storedNames(accountId, "vol_copiedcopiedcopi")).toHaveLength(2);
  });
});
