// Tenants' images removed on a real engine (podman, as root, like CI), with the clock in the test's
// hands: an image a custom launch pulled goes once no container has used it for the keep time, not
// while one does nor before; an image the host had before, or one a template's launch uses, never
// goes; a restarted agent removes what it pulled before; and removing a name another name shares only
// takes the name away. Each image here is an empty one imported under a name of its own (its own id,
// which no other test's container shares); importing it stands in for the pull.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { Readable } from "node:stream";
import Docker from "dockerode";
import { afterEach, describe, expect, it } from "vitest";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { statusOf } from "./docker-pull.ts";
import { ImagePruning } from "./image-pruning.ts";

const HOUR = 3_600_000;
const dir = useTempDir("image-pruning-");
const docker = new Docker();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** A name no image on the engine has. */
function newName(): string {
  const name = `localhost/gpu-rental-prune-${randomBytes(6).toString("hex")}:1`;
  cleanups.push(() => docker.getImage(name).remove({ force: true }));
  return name;
}

/** An empty image of its own id under `name`, as a pull would leave it. */
async function pulled(name: string): Promise<string> {
  const stream = (await docker.importImage(Readable.from([Buffer.alloc(1024)]), { message: randomBytes(8).toString("hex") })) as NodeJS.ReadableStream;
  let text = "";
  for await (const chunk of stream) text += String(chunk);
  const id = /sha256:[0-9a-f]{64}/.exec(text)![0];
  await tag(id, name);
  return id;
}

async function tag(id: string, name: string): Promise<void> {
  const [repo, version] = name.split(/:(?=[^:/]+$)/) as [string, string];
  await docker.getImage(id).tag({ repo, tag: version });
}

async function present(name: string): Promise<boolean> {
  return docker.getImage(name).inspect().then(() => true, (error: unknown) => (statusOf(error) === 404 ? false : Promise.reject(error)));
}

async function containerOf(image: string): Promise<Docker.Container> {
  const container = await docker.createContainer({ name: `gpu-rental-prune-${randomBytes(6).toString("hex")}`, Image: image, Cmd: ["/never-started"] });
  cleanups.push(() => container.remove({ force: true }));
  return container;
}

describe.skipIf(!process.env.DOCKER_HOST)("tenants' images removed on a real engine", () => {
  let now = 0;
  const pruning = (file = join(dir.path, `${randomBytes(4).toString("hex")}.json`)) => new ImagePruning(docker, { file, keepMs: HOUR, now: () => now });

  it("removes a custom launch's image once no container has used it for the keep time, and not before", async () => {
    now = 0;
    const images = pruning();
    const image = newName();
    await images.willPull(image);
    await pulled(image);
    const container = await containerOf(image);
    now = 2 * HOUR;
    expect(await images.prune()).toEqual([]);
    now = 2.5 * HOUR;
    expect(await images.prune()).toEqual([]);
    // Last used at 2.5 h: kept until 3.5 h.
    await container.remove({ force: true });
    now = 3.5 * HOUR - 1;
    expect(await images.prune()).toEqual([]);
    expect(await present(image)).toBe(true);
    now = 3.5 * HOUR;
    expect(await images.prune()).toEqual([image]);
    expect(await present(image)).toBe(false);
  });

  it("never removes an image the host had before the launch pulled it, nor one a template's launch uses", async () => {
    now = 0;
    const images = pruning();
    const operators = newName();
    await pulled(operators);
    await images.willPull(operators);
    const template = newName();
    await images.willPull(template);
    await pulled(template);
    await images.templateUses(template);
    now = 100 * HOUR;
    expect(await images.prune()).toEqual([]);
    expect([await present(operators), await present(template)]).toEqual([true, true]);
  });

  it("a restarted agent removes the images it pulled before", async () => {
    now = 0;
    const file = join(dir.path, "restarted.json");
    const image = newName();
    await pruning(file).willPull(image);
    await pulled(image);
    now = 2 * HOUR;
    expect(await pruning(file).prune()).toEqual([image]);
  });

  it("removing a tenant's name only takes the name away while another name holds the image", async () => {
    now = 0;
    const images = pruning();
    const image = newName();
    await images.willPull(image);
    const id = await pulled(image);
    const kept = newName();
    await tag(id, kept);
    now = 2 * HOUR;
    expect(await images.prune()).toEqual([image]);
    expect(await present(image)).toBe(false);
    expect((await docker.getImage(kept).inspect()).Id).toBe(id);
  });
});
