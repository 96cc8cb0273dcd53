// A volume outlives its instance and its host, on the real local stack (wrangler dev, its R2 and S3
// endpoint, two real agents): a file written into an instance's volume on dev-1 through the files API
// is saved as the instance is destroyed, and an instance launched on dev-2 with the volume reads the
// same bytes (SHA-256); a save on POST /v1/volumes/{id}/save, and nothing sent for an unchanged one.
import { createHash, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ok, type Volume } from "../../client/index.ts";
import { singleFileTar } from "../../host-agent/files/single-file-tar.ts";
import { readTar } from "../../standards/tar-read.ts";
import { useTempDir } from "../support/agent/temp-dir.ts";
import { poll, useE2eStack, type Instance } from "./support/e2e-stack.ts";

const stack = useE2eStack();
const scratch = useTempDir("e2e-volumes-");
/** Two chunks and a bit: more than one 8 MiB chunk, the last one short. */
const CONTENT = randomBytes(17 * 1024 * 1024 + 5);
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

let volumeId: string;

beforeAll(async () => {
  volumeId = (await ok(stack.client.POST("/v1/volumes", { body: { name: "carried", size_gb: 1 } }))).id;
});

const volume = () => ok(stack.client.GET("/v1/volumes/{id}", { params: { path: { id: volumeId } } })) as Promise<Volume>;

/** Puts `bytes` as `/workspace/<name>` of the instance through the files API, as `gpu cp` does. */
async function upload(instance: Instance, name: string, bytes: Buffer): Promise<void> {
  const file = join(scratch.path, name);
  writeFileSync(file, bytes);
  const tar = Buffer.concat(await singleFileTar(name, file, bytes.length, new Date()).toArray());
  const answer = await fetch(`${stack.baseUrl}/v1/instances/${instance.id}/files?path=/workspace`, {
    method: "PUT", headers: { authorization: `Bearer ${stack.key}`, "content-type": "application/x-tar" }, body: tar,
  });
  expect(answer.status, await answer.clone().text()).toBe(204);
}

/** The bytes of `/workspace/<name>` of the instance, through the files API. */
async function download(instance: Instance, name: string): Promise<Buffer> {
  const answer = await fetch(`${stack.baseUrl}/v1/instances/${instance.id}/files?path=/workspace/${name}`, { headers: { authorization: `Bearer ${stack.key}` } });
  expect(answer.status).toBe(200);
  for await (const { entry, body } of readTar(answer.body!)) {
    if (entry.name !== name) continue;
    const parts: Uint8Array[] = [];
    for await (const part of body) parts.push(part);
    return Buffer.concat(parts);
  }
  throw new Error(`no ${name} in the archive`);
}

async function destroy(instance: Instance): Promise<void> {
  await ok(stack.client.DELETE("/v1/instances/{id}", { params: { path: { id: instance.id } } }));
}

describe("a volume across hosts", () => {
  it("what an instance on dev-1 wrote is read by an instance on dev-2 after the first is destroyed", async () => {
    const first = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "pytorch", volumes: [{ volume_id: volumeId }] });
    await upload(first, "weights.bin", CONTENT);

    // An explicit save: the version grows; saved again unchanged, and as it is destroyed, it stays.
    const saved = await stack.api("POST", `/v1/volumes/${volumeId}/save`);
    expect(saved.status, JSON.stringify(saved.body)).toBe(202);
    const afterSave = await poll(volume, (v) => v.version === 1);
    expect(afterSave.used_bytes).toBe(CONTENT.length);
    expect((await stack.api("POST", `/v1/volumes/${volumeId}/save`)).status).toBe(202);

    // Destroyed: its final save has nothing new, and the volume is free once the host said so.
    await destroy(first);
    const detached = await poll(volume, (v) => v.attachments.length === 0, 60_000);
    expect(detached.version).toBe(1);

    const second = await stack.launchRunning({ gpu_model: "h100-80gb", gpu_count: 1, template: "pytorch", volumes: [{ volume_id: volumeId }] });
    expect(sha256(await download(second, "weights.bin"))).toBe(sha256(CONTENT));

    // A change there is saved as that instance is destroyed.
    await upload(second, "notes.txt", Buffer.from("written on dev-2"));
    await destroy(second);
    const last = await poll(volume, (v) => v.attachments.length === 0 && v.version === 2, 60_000);
    expect(last.used_bytes).toBe(CONTENT.length + "written on dev-2".length);
  });
});
