// Volumes when things go wrong, on the real local stack (wrangler dev, its R2 and S3 endpoint, two
// real agents): an agent killed (SIGKILL) in the middle of a save leaves the previous version the
// latest and whole, read by read-only instances on both hosts at once, and saves again once it is
// back; content over the volume's size is not saved, and says so; a deleted volume's objects are
// gone from R2. The bucket is read through its S3 API, as any R2 client would.
import { createHash, randomBytes } from "node:crypto";
import { closeSync, openSync, ftruncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AwsClient } from "aws4fetch";
import { describe, expect, it } from "vitest";
import { ok, type Volume } from "../../client/index.ts";
import { volumePrefix } from "../../protocol/volumes.ts";
import { localR2Credentials, localR2Endpoint } from "../../scripts/dev/local-r2.ts";
import { readTar } from "../../standards/tar-read.ts";
import { poll, useE2eStack, type Instance } from "./support/e2e-stack.ts";
import { ROOT } from "./support/gpu-cli.ts";

const stack = useE2eStack();
const MiB = 1024 * 1024;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function createVolume(name: string, sizeGb = 1): Promise<Volume> {
  return ok(stack.client.POST("/v1/volumes", { body: { name, size_gb: sizeGb } }));
}
const volume = (id: string) => ok(stack.client.GET("/v1/volumes/{id}", { params: { path: { id } } })) as Promise<Volume>;
const save = async (id: string) => expect((await stack.api("POST", `/v1/volumes/${id}/save`)).status).toBe(202);
const destroy = async (instance: Instance) => expect((await stack.api("DELETE", `/v1/instances/${instance.id}`)).status).toBe(204);

/** Where the dev agent keeps an instance's working copy of a volume (host-agent/dev/local-runtime.ts). */
const workingCopy = (host: string, instance: Instance, volumeId: string) =>
  join(stack.stateDir, "agents", host, "containers", instance.id, "volumes", volumeId);

/** The keys under the volume's prefix, listed through R2's S3 API (ListObjectsV2). */
async function storedKeys(volumeId: string): Promise<string[]> {
  const r2 = new AwsClient({ ...localR2Credentials(ROOT), service: "s3", region: "auto" });
  const url = new URL(`${localR2Endpoint(stack.baseUrl)}/gpu-rental-volumes`);
  url.searchParams.set("list-type", "2");
  url.searchParams.set("prefix", volumePrefix(stack.setup.account.id, volumeId));
  const answer = await r2.fetch(url);
  expect(answer.status).toBe(200);
  return [...(await answer.text()).matchAll(/<Key>([^<]+)<\/Key>/g)].map((match) => match[1]!);
}

/** Each file under `dir` of the instance, by its path within `dir`, as the files API gives it. */
async function filesOf(instance: Instance, dir: string): Promise<Map<string, string>> {
  const answer = await fetch(`${stack.baseUrl}/v1/instances/${instance.id}/files?path=${dir}`, { headers: { authorization: `Bearer ${stack.key}` } });
  expect(answer.status).toBe(200);
  const files = new Map<string, string>();
  for await (const { entry, body } of readTar(answer.body!)) {
    const parts: Uint8Array[] = [];
    for await (const part of body) parts.push(part);
    if (entry.type === "file") files.set(entry.name.split("/").slice(1).join("/"), sha256(Buffer.concat(parts)));
  }
  return files;
}

describe("volumes when things go wrong", () => {
  it("an agent killed mid-save leaves the previous version whole, read-only instances on both hosts read it at once, and the next save after the agent is back commits", async () => {
    const vol = await createVolume("killed-mid-save");
    const writer = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch", volumes: [{ volume_id: vol.id }] });
    const copy = workingCopy("dev-1", writer, vol.id);
    const first = randomBytes(9 * MiB);
    writeFileSync(join(copy, "first.bin"), first);
    await save(vol.id);
    await poll(() => volume(vol.id), (v) => v.version === 1);
    const storedAtVersion1 = (await storedKeys(vol.id)).length;

    // 96 MiB more: twelve chunks, uploaded a few at a time. The agent dies once some are stored.
    writeFileSync(join(copy, "second.bin"), randomBytes(96 * MiB));
    await save(vol.id);
    await poll(() => storedKeys(vol.id), (keys) => keys.length >= storedAtVersion1 + 2, 60_000);
    process.kill(stack.agents.get("dev-1")!.process.pid!, "SIGKILL");
    await stack.waitForMachines({ "dev-1": false });
    expect(await volume(vol.id)).toMatchObject({ version: 1, used_bytes: first.length });

    // Version 1, whole, on both hosts at once, while the writer's host is away.
    const readers = await Promise.all([
      stack.launchRunning({ gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch", volumes: [{ volume_id: vol.id, path: "/datasets", read_only: true }] }),
      stack.launchRunning({ gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch", volumes: [{ volume_id: vol.id, path: "/datasets", read_only: true }] }),
    ]);
    for (const reader of readers) expect(await filesOf(reader, "/datasets")).toEqual(new Map([["first.bin", sha256(first)]]));

    // Back: the next save sends what the dead one did not commit, and makes version 2.
    stack.startAgent("dev-1");
    await stack.waitForMachines({ "dev-1": true });
    // The machine is online before its agent's report has the writer running again.
    await poll(async () => (await stack.api<Instance>("GET", `/v1/instances/${writer.id}`)).body, (i) => i.status === "running", 60_000);
    await save(vol.id);
    expect(await poll(() => volume(vol.id), (v) => v.version === 2, 60_000)).toMatchObject({ used_bytes: first.length + 96 * MiB });
    await Promise.all([writer, ...readers].map(destroy));
  });

  it("content over the volume's size is not saved: the instance's status message and events say so, and the last version stays", async () => {
    const vol = await createVolume("over-size", 1);
    const instance = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch", volumes: [{ volume_id: vol.id }] });
    // 1.2 GB of holes: the save measures it before reading any of it.
    const fd = openSync(join(workingCopy("dev-1", instance, vol.id), "huge.bin"), "w");
    ftruncateSync(fd, 1_200_000_000);
    closeSync(fd);
    await save(vol.id);
    const shown = await poll(async () => (await stack.api<Instance & { status_message: string }>("GET", `/v1/instances/${instance.id}`)).body, (i) => i.status_message !== "");
    expect(shown.status_message).toBe("volume over-size not saved: the volume's content is 1,200,000,000 bytes, over its size of 1,000,000,000 bytes: nothing was saved, the last version stays");
    const events = (await stack.api<{ items: { message: string }[] }>("GET", `/v1/instances/${instance.id}/events`)).body.items;
    expect(events.map((event) => event.message)).toContain(`Volume over-size not saved: ${shown.status_message.slice("volume over-size not saved: ".length)}; it stays empty`);
    expect(await volume(vol.id)).toMatchObject({ version: 0, used_bytes: 0, stored_bytes: 0 });
    expect(await storedKeys(vol.id)).toEqual([]);
    await destroy(instance);
  });

  it("a deleted volume's objects are gone from R2, its snapshots' too", async () => {
    const vol = await createVolume("deleted");
    const instance = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch", volumes: [{ volume_id: vol.id }] });
    writeFileSync(join(workingCopy("dev-1", instance, vol.id), "kept.bin"), randomBytes(MiB));
    await save(vol.id);
    await poll(() => volume(vol.id), (v) => v.version === 1);
    expect((await stack.api("POST", `/v1/volumes/${vol.id}/snapshots`, { name: "kept" })).status).toBe(201);
    expect(await storedKeys(vol.id)).not.toEqual([]);
    await destroy(instance);
    await poll(() => volume(vol.id), (v) => v.attachments.length === 0, 60_000);
    expect((await stack.api("DELETE", `/v1/volumes/${vol.id}`)).status).toBe(204);
    await poll(() => storedKeys(vol.id), (keys) => keys.length === 0);
  });
});
