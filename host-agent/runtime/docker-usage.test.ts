// Container usage from a real Docker-compatible engine (scripts/ci/podman.sh provides one): CPU time
// that grows while the container works, its memory, its GPUs (none here), and only running ones.
// Runs when DOCKER_HOST is set, like docker-runtime.test.ts.
import Docker from "dockerode";
import { afterAll, describe, expect, it } from "vitest";
import { randomInstanceId, testSpec } from "../../test/support/agent/specs.ts";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { waitUntil } from "../../test/support/agent/wait-until.ts";
import { DockerRuntime } from "./docker-runtime.ts";
import { ENGINE_TESTS_SCOPE } from "../../test/support/agent/engine-scope.ts";

describe.skipIf(!process.env.DOCKER_HOST)("docker container usage against a real engine", () => {
  const cacheDir = useTempDir("docker-usage-cache-");
  const id = randomInstanceId();
  let runtime: DockerRuntime;

  afterAll(async () => {
    await runtime?.destroy(id);
    await runtime?.close();
  });

  it("reads a busy container's growing CPU time and its memory, and forgets it once stopped", async () => {
    runtime = new DockerRuntime({ modelCacheDir: cacheDir.path, stopTimeoutSeconds: 1, docker: new Docker(), scope: ENGINE_TESTS_SCOPE });
    const spec = testSpec(id, { image: "localhost/gpu-rental-busybox:latest", ports: [], gpu_indices: [], command: ["sh", "-c", "while :; do :; done"] });
    await runtime.create(spec, () => {});
    await runtime.start(id);
    const first = (await runtime.usage()).find((u) => u.instanceId === id);
    expect(first).toEqual({ instanceId: id, cpuNs: expect.any(Number), memoryBytes: expect.any(Number), gpuIndices: [], requestsServed: null });
    const later = await waitUntil(async () => {
      const usage = (await runtime.usage()).find((u) => u.instanceId === id);
      return usage && usage.cpuNs! > first!.cpuNs! + 50e6 ? usage : undefined;
    }, "50 ms more CPU time");
    expect(later.memoryBytes).toBeGreaterThan(0);
    await runtime.stop(id);
    expect((await runtime.usage()).some((u) => u.instanceId === id)).toBe(false);
  });
});
