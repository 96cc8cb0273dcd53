// The docker runtime's volumes against a real engine (podman's API service, scripts/ci/podman.sh): each
// working copy bound at its path under the instance's own folder, read-only for a read-only mount, its
// files owned by the image's user as the restore makes them, and gone on destroy. Runs when DOCKER_HOST
// is set; REQUIRE_DOCKER_ENGINE=1 turns a missing engine into a failure.
import { existsSync } from "node:fs";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VolumeMount } from "../../protocol/volumes.ts";
import { execIn } from "../../test/support/agent/docker-exec.ts";
import { ENGINE_TESTS_SCOPE } from "../../test/support/agent/engine-scope.ts";
import { randomInstanceId, testSpec } from "../../test/support/agent/specs.ts";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { InstanceVolumes } from "../instance-volumes.ts";
import { createLogger } from "../log.ts";
import { VolumeRequests } from "../volume-requests.ts";
import { VolumeLibrary } from "../volumes/volume-library.ts";
import { containerName } from "./docker-container-config.ts";
import { DockerRuntime } from "./docker-runtime.ts";

const BASE_IMAGE = "localhost/gpu-rental-busybox:latest";
/** The busybox image with a user of its own, `app` (1234, group appgroup 2345), as its USER. */
const USER_IMAGE = "localhost/gpu-rental-volume-user:test";
const hasEngine = Boolean(process.env.DOCKER_HOST);

if (!hasEngine && process.env.REQUIRE_DOCKER_ENGINE === "1") {
  describe("docker runtime volumes", () => {
    it("needs a Docker-compatible engine", () => {
      throw new Error("REQUIRE_DOCKER_ENGINE=1 but DOCKER_HOST is not set: run scripts/ci/podman.sh and export the DOCKER_HOST it prints");
    });
  });
}

const mount = (volume_id: string, path: string, read_only: boolean): VolumeMount => ({ volume_id, path, read_only, version: 0, manifest: null, max_bytes: 10 ** 9 });
const WORK = mount("vol_workworkworkwork", "/workspace", false);
const REFERENCE = mount("vol_referencereferen", "/mnt/reference", true);

/** Commits a busybox container that added `app` to its passwd and group files, with USER app. */
async function buildUserImage(docker: Docker): Promise<void> {
  const script = "echo 'app:x:1234:2345::/home/app:/bin/sh' >> /etc/passwd && echo 'appgroup:x:2345:' >> /etc/group";
  const builder = await docker.createContainer({ Image: BASE_IMAGE, Cmd: ["sh", "-c", script], Labels: { "gpu-rental.managed": ENGINE_TESTS_SCOPE } });
  try {
    await builder.start();
    await builder.wait();
    await builder.commit({ repo: USER_IMAGE.split(":")[0], tag: "test", changes: "USER app" });
  } finally {
    await builder.remove({ force: true });
  }
}

describe.skipIf(!hasEngine)("docker runtime volumes against a real engine", () => {
  const docker = new Docker();
  const volumesDir = useTempDir("docker-volumes-");
  const cacheDir = useTempDir("docker-volumes-cache-");
  const stateDir = useTempDir("docker-volumes-state-");
  const id = randomInstanceId();
  let runtime: DockerRuntime;

  beforeAll(async () => {
    await buildUserImage(docker);
    runtime = new DockerRuntime({ modelCacheDir: cacheDir.path, volumesDir: volumesDir.path, stopTimeoutSeconds: 1, docker, scope: ENGINE_TESTS_SCOPE, hostLocalImages: true });
  });
  afterAll(async () => {
    await runtime?.destroy(id);
    await runtime?.close();
    await docker.getImage(USER_IMAGE).remove({ force: true }).catch(() => undefined);
  });

  it("binds each working copy at its path, read-only for a read-only mount, and says who the container runs as", async () => {
    await runtime.create(testSpec(id, { image: USER_IMAGE, ports: [], gpu_indices: [], command: ["sh", "-c", "exec sleep 600"], volumes: [WORK, REFERENCE] }), () => {});
    const info = await docker.getContainer(containerName(id)).inspect();
    const mounts = info.Mounts.filter((m) => m.Type === "bind").map(({ Source, Destination, RW }) => ({ Source, Destination, RW }));
    expect(mounts).toEqual(expect.arrayContaining([
      { Source: join(volumesDir.path, id, WORK.volume_id), Destination: "/workspace", RW: true },
      { Source: join(volumesDir.path, id, REFERENCE.volume_id), Destination: "/mnt/reference", RW: false },
    ]));
    expect(await runtime.volumes(id)).toEqual([WORK, REFERENCE].map((m) => ({ mount: m, dir: join(volumesDir.path, id, m.volume_id) })));
    expect(await runtime.volumeOwner(id)).toEqual({ uid: 1234, gid: 2345 });
  });

  it("restores the working copies as the image's user: the container's process writes the read-write one, not the read-only one", async () => {
    const volumes = new InstanceVolumes({
      runtime, library: new VolumeLibrary(stateDir.path, 2 ** 30), requests: new VolumeRequests(() => false), send: () => {}, log: createLogger(() => {}),
    });
    // Version 0, empty: nothing to ask the platform for.
    await volumes.restore(id, null);
    for (const { volume_id } of [WORK, REFERENCE]) {
      const owner = await stat(join(volumesDir.path, id, volume_id));
      expect({ uid: owner.uid, gid: owner.gid }).toEqual({ uid: 1234, gid: 2345 });
    }
    await writeFile(join(volumesDir.path, id, REFERENCE.volume_id, "reference.txt"), "read me");
    await runtime.start(id);
    const script = "id -u; id -g; echo made > /workspace/made.txt && echo wrote; cat /mnt/reference/reference.txt; echo; { echo no > /mnt/reference/x.txt; } 2>&1 || echo refused";
    const { exitCode, output } = await execIn(docker, containerName(id), ["sh", "-c", script]);
    expect(exitCode).toBe(0);
    // Refused by the mount, not by permissions: the container's user owns that copy too.
    expect(output).toBe("1234\n2345\nwrote\nread me\nsh: can't create /mnt/reference/x.txt: Read-only file system\nrefused\n");
    const made = join(volumesDir.path, id, WORK.volume_id, "made.txt");
    expect(await readFile(made, "utf8")).toBe("made\n");
    expect((await stat(made)).uid).toBe(1234);
    expect(existsSync(join(volumesDir.path, id, REFERENCE.volume_id, "x.txt"))).toBe(false);
  });

  it("removes the working copies with the container", async () => {
    await runtime.destroy(id);
    expect(existsSync(join(volumesDir.path, id))).toBe(false);
  });

  it("refuses a container with volumes where the runtime keeps none", async () => {
    const without = new DockerRuntime({ modelCacheDir: cacheDir.path, docker, scope: ENGINE_TESTS_SCOPE, hostLocalImages: true });
    const other = randomInstanceId();
    await expect(without.create(testSpec(other, { image: BASE_IMAGE, ports: [], gpu_indices: [], volumes: [WORK] }), () => {})).rejects.toThrow("this host keeps no volumes");
    expect(await without.list()).not.toContainEqual(expect.objectContaining({ instanceId: other }));
  });
});
