// The daily sweep of a volume's objects that nothing names, on a frozen clock against miniflare's R2:
// what a save that never committed left (its chunks and manifest) goes once it is more than a day old,
// a younger one, everything a kept manifest names and an upload's chunks stay, each volume is swept
// once a day and not more, and a commit that holds the volume's lock keeps the chunks it checked.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { clock } from "../../../core/clock.ts";
import { chunkName, volumeObjectKey, VOLUME_CHUNK_BYTES } from "../../../protocol/volumes.ts";
import { call, callJson, newAccount, keyCredential } from "../../../test/support/workerd/api-client.ts";
import { advanceClock, freezeClockInEachTest } from "../../../test/support/workerd/test-clock.ts";
import { storedNames, storeSave } from "../../../test/support/workerd/volume-content.ts";
import { sqlFor } from "../../sql.ts";
import type { AccountDO } from "../account-do.ts";
import type { Volumes } from "./volumes.ts";

interface Volume { id: string; version: number; stored_bytes: number }

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const moveTo = (atMs: number) => advanceClock(atMs - clock.now());

freezeClockInEachTest();
// R2 stamps uploads with the real time: each test begins with the objects' clock there, where a test before may have moved it days ahead.
beforeEach(() => moveTo(Date.now()));

/** An account holding `volumes`, made now; `add` makes another. */
async function accountWith(...volumes: string[]) {
  const { id: accountId, key } = await newAccount();
  const account = env.ACCOUNTS.getByName(accountId);
  const ids: Record<string, string> = {};
  const add = async (name: string) => {
    ids[name] = (await callJson<Volume>("POST", "/v1/volumes", { key, body: { name, size_gb: 1 } })).body.id;
  };
  for (const name of volumes) await add(name);
  const volume = (name: string) => callJson<Volume>("GET", `/v1/volumes/${name}`, { key }).then((answer) => answer.body);
  const save = (name: string, files: Record<string, string>) => storeSave(accountId, ids[name]!, files);
  const commit = (name: string, manifest: string, base_version: number) =>
    account.commitVolumeFiles(keyCredential(key), { volume_id: ids[name]!, instance_id: null, base_version, manifest, bytes_sent: 0 });
  const names = (name: string) => storedNames(accountId, ids[name]!);
  /** The save's objects, as names under the volume. */
  const objectsOf = (saved: { manifest: string; hashes: string[] }) => [saved.manifest, ...saved.hashes.map(chunkName)];
  /** When the newest of the save's objects was uploaded, as R2 says. */
  const uploadedMs = async (name: string, saved: { manifest: string; hashes: string[] }) => {
    const heads = await Promise.all(objectsOf(saved).map((object) => env.VOLUMES.head(volumeObjectKey(accountId, ids[name]!, object))));
    return Math.max(...heads.map((head) => head!.uploaded.getTime()));
  };
  const ring = () => runDurableObjectAlarm(account);
  return { accountId, key, account, ids, add, volume, save, commit, names, objectsOf, uploadedMs, ring };
}

/** Waits until R2 will give the next upload a later time than `ms`: the rule is strictly older than a day. */
async function pastMs(ms: number): Promise<void> {
  while (Date.now() <= ms) await new Promise((resolve) => setTimeout(resolve, 2));
}

describe("the sweep of a volume's objects nothing names", () => {
  it("deletes an uncommitted save's chunk and manifest once more than a day old, keeping a younger one and what the latest version and a snapshot name", async () => {
    const a = await accountWith("data");
    const v1 = await a.save("data", { "shared.txt": "in every version", "only.txt": "version one" });
    expect(await a.commit("data", v1.manifest, 0)).toMatchObject({ ok: true, version: 1 });
    expect((await callJson("POST", "/v1/volumes/data/snapshots", { key: a.key })).status).toBe(201);
    const v2 = await a.save("data", { "shared.txt": "in every version", "only.txt": "version two" });
    expect(await a.commit("data", v2.manifest, 1)).toMatchObject({ ok: true, version: 2 });
    const dead = await a.save("data", { "dead.txt": "a save that died before its commit" });
    const deadAt = await a.uploadedMs("data", dead);
    await pastMs(deadAt);
    const young = await a.save("data", { "young.txt": "a save still in flight" });
    expect(await a.uploadedMs("data", young)).toBeGreaterThan(deadAt);
    const storedBytes = (await a.volume("data")).stored_bytes;

    // The dead save is just over a day old, the young one just under, and the volume's day has come.
    moveTo(deadAt + DAY + 1);
    expect(await a.ring()).toBe(true);
    const kept = [...a.objectsOf(v1), ...a.objectsOf(v2), ...a.objectsOf(young)];
    expect(await a.names("data")).toEqual([...new Set(kept)].sort());
    // Billed bytes count the kept chunks alone, before and after.
    expect((await a.volume("data")).stored_bytes).toBe(storedBytes);
    expect(await runInDurableObject(a.account, (_, state) => sqlFor(state.storage)`SELECT key FROM volume_garbage`)).toEqual([]);
  });

  it("reads the volume's prefix a page of 1,000 at a time to its end", async () => {
    const a = await accountWith("data");
    const kept = await a.save("data", { "kept.txt": "the latest version" });
    expect(await a.commit("data", kept.manifest, 0)).toMatchObject({ ok: true, version: 1 });
    // 1,100 chunks of saves that never committed: at least 100 of them on the second page.
    const orphans = Array.from({ length: 1_100 }, (_, i) => volumeObjectKey(a.accountId, a.ids.data!, chunkName(`f${i.toString(16).padStart(63, "0")}`)));
    for (let i = 0; i < orphans.length; i += 50) await Promise.all(orphans.slice(i, i + 50).map((key) => env.VOLUMES.put(key, "x")));
    expect(await a.names("data")).toHaveLength(1_102);
    moveTo((await a.uploadedMs("data", kept)) + DAY + HOUR);
    expect(await a.ring()).toBe(true);
    expect(await a.names("data")).toEqual(a.objectsOf(kept).sort());
  });

  it("sweeps each volume once a day from its creation, and not more often", async () => {
    const startMs = clock.now();
    const a = await accountWith("early");
    moveTo(startMs + 12 * HOUR);
    await a.add("late");
    await a.save("early", { "a.txt": "never committed" });
    const lateOrphan = await a.save("late", { "b.txt": "never committed either" });

    // A day after the first volume was made: it is swept, the other's orphan waits for its own day.
    moveTo(startMs + DAY + HOUR);
    expect(await a.ring()).toBe(true);
    expect(await a.names("early")).toEqual([]);
    expect(await a.names("late")).toEqual(a.objectsOf(lateOrphan).sort());
    moveTo(startMs + 12 * HOUR + DAY);
    expect(await a.ring()).toBe(true);
    expect(await a.names("late")).toEqual([]);

    // Swept at startMs + DAY + HOUR: an orphan left since is old enough, but the next sweep is a day after that one.
    const again = await a.save("early", { "c.txt": "left after the sweep" });
    moveTo(startMs + 2 * DAY);
    expect(await a.ring()).toBe(true);
    expect(await a.names("early")).toEqual(a.objectsOf(again).sort());
    moveTo(startMs + 2 * DAY + HOUR);
    expect(await a.ring()).toBe(true);
    expect(await a.names("early")).toEqual([]);
  });

  it("keeps the chunks of an upload in progress, however long ago they were stored", async () => {
    const startMs = clock.now();
    const a = await accountWith("data");
    // The part's chunk reaches the bucket now, but is appended to the upload on the objects' clock a day on.
    moveTo(startMs + DAY - 30 * MINUTE);
    const bytes = new Uint8Array(VOLUME_CHUNK_BYTES).fill(7);
    const query = new URLSearchParams({ path: "/big.bin", upload: "upload-000000000001", offset: "0" });
    const sent = await call("PUT", `/v1/volumes/data/files?${query}`, {
      key: a.key, rawBody: bytes, headers: { "content-type": "application/octet-stream", "content-length": String(bytes.byteLength) },
    });
    expect(sent.status).toBe(202);
    const [staged] = await a.names("data");
    expect(staged).toMatch(/^chunks\//);
    // The volume's day has come, the upload's hour of idleness has not.
    moveTo(startMs + DAY + 10 * MINUTE);
    expect(await a.ring()).toBe(true);
    expect(await a.names("data")).toEqual([staged]);
  });

  it("keeps the objects of a commit racing it: the commit that checked them holds the volume until it has recorded them", async () => {
    const a = await accountWith("data");
    // A save left for more than a day (its host's answer lost, sent again once back): every object
    // is old enough to be swept, and enough chunks that the commit is still checking them while the
    // sweep lists.
    const files = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}.txt`, `file ${i}`]));
    const resent = await a.save("data", files);
    moveTo((await a.uploadedMs("data", resent)) + DAY + HOUR);
    const committed = await runInDurableObject(a.account, async (account: AccountDO) => {
      const { commits, sweep } = (account as unknown as { volumes: Volumes }).volumes;
      const request = { volume_id: a.ids.data!, instance_id: null, base_version: 0, manifest: resent.manifest, bytes_sent: 0 };
      const [answer] = await Promise.all([commits.commit(request), sweep.onAlarm(clock.now())]);
      return answer;
    });
    expect(committed).toEqual({ ok: true, version: 1, changed: true });
    expect(await a.names("data")).toEqual(a.objectsOf(resent).sort());
    expect((await a.volume("data")).stored_bytes).toBe(Object.values(files).join("").length);
  });
});
