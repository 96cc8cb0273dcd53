// Which volume versions a host says it holds whole, with the real library against a real S3 endpoint
// (miniflare's R2 with its local S3 API): the version a copy was restored from or saved as, kept
// after the copy is discarded, while every one of its chunks is in the cache; none for an empty
// volume; an evicted chunk takes the version out; the agent's next run knows them again; at most
// MAX_HELD_VOLUMES volumes, the least recently used forgotten first.
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_HELD_VOLUMES, type VolumeMount } from "../../protocol/volumes.ts";
import { startLocalS3, type LocalS3, type Versions } from "../../test/support/agent/local-s3.ts";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { HeldVersions } from "./held-versions.ts";
import { ChunkCache } from "./chunk-cache.ts";
import { VolumeLibrary } from "./volume-library.ts";

const MiB = 2 ** 20;
const temp = useTempDir("held-versions-");
let s3: LocalS3 & { versions: Versions };
let volumes = 0;
let hosts = 0;

beforeAll(async () => {
  s3 = await startLocalS3();
});
afterAll(() => s3?.close());

const newVolume = () => `vol_${"abcdefghijklmnopqrstuvwxyz"[volumes++]!.repeat(16)}`;
const newHost = (cacheBytes = 2 ** 30) => {
  const stateDir = join(temp.path, `host-${hosts++}`);
  return { stateDir, library: new VolumeLibrary(stateDir, cacheBytes), copy: (volumeId: string, instance = "i1") => join(stateDir, instance, volumeId) };
};

function mountOf(volumeId: string, readOnly = false): VolumeMount {
  const latest = s3.versions.get(volumeId) ?? { version: 0, manifest: null };
  return { volume_id: volumeId, path: "/workspace", read_only: readOnly, version: latest.version, manifest: latest.manifest, max_bytes: 10 ** 9 };
}

/** A volume saved from a first host with `files` (name → bytes): at version 1. */
async function savedVolume(files: Record<string, Buffer | string>) {
  const volumeId = newVolume();
  const origin = newHost();
  const signer = s3.signer();
  await origin.library.restore(mountOf(volumeId), origin.copy(volumeId), signer);
  for (const [name, bytes] of Object.entries(files)) await writeFile(join(origin.copy(volumeId), name), bytes);
  expect(await origin.library.save(mountOf(volumeId), origin.copy(volumeId), signer)).toMatchObject({ kind: "saved", version: 1 });
  return { volumeId, origin };
}

describe("volume versions a host holds", () => {
  it("are those restored or saved here, kept once the copy is discarded and known again by the agent's next run; an empty volume is none", async () => {
    const { volumeId, origin } = await savedVolume({ "a.bin": randomBytes(MiB) });
    const empty = newVolume();
    expect(await origin.library.held()).toEqual([{ volume_id: volumeId, version: 1 }]);

    const host = newHost();
    expect(await host.library.held()).toEqual([]);
    await host.library.restore(mountOf(empty), host.copy(empty), s3.signer());
    await host.library.restore(mountOf(volumeId, true), host.copy(volumeId), s3.signer());
    expect(await host.library.held()).toEqual([{ volume_id: volumeId, version: 1 }]);
    await host.library.discard(host.copy(volumeId));
    expect(await host.library.held()).toEqual([{ volume_id: volumeId, version: 1 }]);
    expect(await new VolumeLibrary(host.stateDir, 2 ** 30).held()).toEqual([{ volume_id: volumeId, version: 1 }]);

    // A save here moves it to the version it made, most recently used first.
    const other = (await savedVolume({ "b.txt": "bee" })).volumeId;
    await host.library.restore(mountOf(other), host.copy(other), s3.signer());
    await host.library.restore(mountOf(volumeId), host.copy(volumeId, "i2"), s3.signer());
    await writeFile(join(host.copy(volumeId, "i2"), "a.bin"), randomBytes(MiB));
    expect(await host.library.save(mountOf(volumeId), host.copy(volumeId, "i2"), s3.signer())).toMatchObject({ kind: "saved", version: 2 });
    expect(await host.library.held()).toEqual([{ volume_id: volumeId, version: 2 }, { volume_id: other, version: 1 }]);
  });

  it("leave out a version one of whose chunks the cache no longer has", async () => {
    const first = await savedVolume({ "a.bin": randomBytes(3 * MiB) });
    const second = await savedVolume({ "b.bin": randomBytes(3 * MiB) });
    // Room for one volume's chunk only: restoring the second evicts the first's.
    const host = newHost(4 * MiB);
    await host.library.restore(mountOf(first.volumeId), host.copy(first.volumeId), s3.signer());
    expect(await host.library.held()).toEqual([{ volume_id: first.volumeId, version: 1 }]);
    await host.library.restore(mountOf(second.volumeId), host.copy(second.volumeId), s3.signer());
    expect(await host.library.held()).toEqual([{ volume_id: second.volumeId, version: 1 }]);
  });

  it(`remember at most ${MAX_HELD_VOLUMES} volumes, forgetting the least recently restored or saved`, async () => {
    const dir = join(temp.path, "bounded");
    const held = new HeldVersions(dir, new ChunkCache(join(temp.path, "bounded-chunks"), 2 ** 20));
    const id = (n: number) => `vol_${n.toString(2).padStart(16, "a").replaceAll("0", "b").replaceAll("1", "c")}`;
    for (let n = 0; n <= MAX_HELD_VOLUMES; n++) {
      await held.note({ volume_id: id(n), version: 1, manifest: "manifests/abcdefghijklmnop.json", content: { format: 1, entries: [] } });
    }
    const listed = await held.whole();
    expect(listed).toHaveLength(MAX_HELD_VOLUMES);
    expect(listed[0]).toEqual({ volume_id: id(MAX_HELD_VOLUMES), version: 1 });
    expect(listed.some((v) => v.volume_id === id(0))).toBe(false);
    expect(await new HeldVersions(dir, new ChunkCache(join(temp.path, "bounded-chunks"), 2 ** 20)).whole()).toEqual(listed);
  });
});
