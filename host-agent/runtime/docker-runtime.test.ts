// The docker runtime against a real Docker-compatible engine (scripts/ci/podman.sh provides one),
// containers' logs and HTTP readiness included:
// runs when DOCKER_HOST is set; REQUIRE_DOCKER_ENGINE=1 turns a missing engine into a failure.
import type { Readable } from "node:stream";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execIn } from "../../test/support/agent/docker-exec.ts";
import { randomInstanceId, testSpec } from "../../test/support/agent/specs.ts";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { waitUntil } from "../../test/support/agent/wait-until.ts";
import { containerName, LOG_FILES } from "./docker-container-config.ts";
import { networkName } from "./docker-network.ts";
import { statusOf } from "./docker-pull.ts";
import { DockerRuntime } from "./docker-runtime.ts";
import type { PortReadiness } from "../../protocol/messages.ts";
import { ReadinessProbes } from "../readiness-probes.ts";
import type { ContainerExit, LogLine } from "./runtime.ts";
import { ENGINE_TESTS_SCOPE } from "../../test/support/agent/engine-scope.ts";

const TEST_IMAGE = "localhost/gpu-rental-busybox:latest";
const hasEngine = Boolean(process.env.DOCKER_HOST);

if (!hasEngine && process.env.REQUIRE_DOCKER_ENGINE === "1") {
  describe("docker runtime", () => {
    it("needs a Docker-compatible engine", () => {
      throw new Error("REQUIRE_DOCKER_ENGINE=1 but DOCKER_HOST is not set: run scripts/ci/podman.sh and export the DOCKER_HOST it prints");
    });
  });
}

describe.skipIf(!hasEngine)("docker runtime against a real engine", () => {
  const docker = new Docker();
  const id = randomInstanceId();
  const cacheDir = useTempDir("docker-runtime-cache-");
  let runtime: DockerRuntime;
  let diskLimited: boolean;
  const exits: ContainerExit[] = [];

  beforeAll(async () => {
    runtime = new DockerRuntime({ modelCacheDir: cacheDir.path, stopTimeoutSeconds: 1, docker, scope: ENGINE_TESTS_SCOPE });
    runtime.onExit((exit) => exits.push(exit));
    // StorageOpt size needs overlay on xfs mounted with pquota. CI's podman runs overlay on extfs, and
    // the enforcing branch cannot be had on its machines at all: their kernel has no XFS quota
    // (CONFIG_XFS_QUOTA unset: an xfs loop device mounted with pquota fails, "quota support not
    // available in this kernel"), and podman's btrfs driver, the other candidate, refuses `size`
    // ("unknown option size", podman 4.3). On an engine that enforces it, the same tests take that branch.
    diskLimited = (await runtime.diskLimits()).enforced === true;
  });
  afterAll(async () => {
    await runtime.destroy(id);
    await runtime.close();
  });

  it("creates a labelled container on its own network, its port published on loopback, with a writable /data", async () => {
    const progress: number[] = [];
    const spec = testSpec(id, { image: TEST_IMAGE, ports: [8080], gpu_indices: [], disk_gb: 12 });
    const first = await runtime.create(spec, (p) => progress.push(p));
    expect(await runtime.create(spec, (p) => progress.push(p))).toEqual(first);
    expect(progress).toEqual([100]);
    const info = await docker.getContainer(containerName(id)).inspect();
    expect(info.Config.Labels).toMatchObject({ "gpu-rental.managed": ENGINE_TESTS_SCOPE, "gpu-rental.instance": id, "gpu-rental.disk_gb": "12" });
    expect(info.Config.Env).toContain("INSTANCE_TOKEN=tok");
    expect(info.HostConfig.PortBindings).toMatchObject({ "8080/tcp": [expect.objectContaining({ HostIp: "127.0.0.1" })] });
    expect(Object.keys(info.NetworkSettings.Networks)).toEqual([networkName(id)]);
    expect(info.Mounts).toEqual([]);
    const network = await docker.getNetwork(networkName(id)).inspect();
    expect(network.Labels).toMatchObject({ "gpu-rental.managed": "true", "gpu-rental.instance": id });
    expect(network.IPAM?.Config?.[0]?.Subnet).toMatch(/^10\.213\.\d+\.\d+\/28$/);
    expect(await runtime.list()).toContainEqual({ instanceId: id, state: "stopped" });
    // An agent of another scope on the same engine (the tests' agents) neither sees nor reconciles it.
    const other = new DockerRuntime({ modelCacheDir: cacheDir.path, docker, scope: `other-${process.pid}` });
    expect((await other.list()).map((c) => c.instanceId)).not.toContain(id);
  });

  it("limits the container to disk_gb where the storage driver can, and says it is not enforced where it cannot", async () => {
    const outcome = await runtime.create(testSpec(id, { image: TEST_IMAGE }), () => {});
    const info = await docker.getContainer(containerName(id)).inspect();
    if (diskLimited) {
      expect(outcome).toEqual({ notice: "" });
      expect(info.HostConfig.StorageOpt).toEqual({ size: "12G" });
    } else {
      expect(outcome).toEqual({ notice: "disk_gb (12 GB) is not enforced on this host: --storage-opt is supported only for overlay over xfs with 'pquota' mount option" });
      expect(info.Config.Labels["gpu-rental.notice"]).toBe(outcome.notice);
    }
  });

  it("asks the engine once whether it can enforce disk_gb, leaving nothing behind", async () => {
    const images = (await docker.listImages({ all: true })).length;
    const limits = await new DockerRuntime({ modelCacheDir: cacheDir.path, docker, scope: ENGINE_TESTS_SCOPE }).diskLimits();
    expect(limits).toEqual(diskLimited ? { enforced: true } : { enforced: false, reason: "--storage-opt is supported only for overlay over xfs with 'pquota' mount option" });
    // Other test files' agents probe the same engine now and then (the same empty image, for a moment): the count comes back.
    await expect.poll(() => docker.listImages({ all: true }).then((list) => list.length, () => -1), { timeout: 10_000 }).toBe(images);
    expect((await docker.listContainers({ all: true, filters: { name: ["gpu-rental-disk-probe-"] } })).length).toBe(0);
  });

  it("refuses a create where disk_gb cannot be enforced when its operator does not accept that, leaving no container", async (context) => {
    if (diskLimited) return context.skip();
    const refusing = new DockerRuntime({ modelCacheDir: cacheDir.path, docker, acceptUnenforcedDisk: false, scope: ENGINE_TESTS_SCOPE });
    const other = randomInstanceId();
    await expect(refusing.create(testSpec(other, { image: TEST_IMAGE }), () => {})).rejects.toThrow(
      "disk_gb cannot be enforced on this host (--storage-opt is supported only for overlay over xfs with 'pquota' mount option), and its operator takes no instances without it",
    );
    expect((await refusing.list()).map((c) => c.instanceId)).not.toContain(other);
    await refusing.destroy(other);
  });

  it("starts, answers through the resolved port, stops, starts again with its /data kept", async () => {
    await runtime.start(id);
    await runtime.start(id);
    expect(await fetchIndex(await runtime.resolvePort(id, 8080))).toBe("gpu-rental busybox ok\n");
    expect(await runtime.list()).toContainEqual({ instanceId: id, state: "running" });
    expect(await execIn(docker, containerName(id), ["sh", "-c", "echo kept > /data/file && stat -c %a /data"])).toEqual({ exitCode: 0, output: "1777\n" });
    const unpublished = await runtime.resolvePort(id, 9000);
    expect(unpublished?.port).toBe(9000);
    expect(unpublished?.host).toMatch(/^10\.213\.\d+\.\d+$/);

    await runtime.stop(id);
    await runtime.stop(id);
    expect(await runtime.resolvePort(id, 8080)).toBeNull();
    expect(await runtime.list()).toContainEqual({ instanceId: id, state: "stopped" });

    await runtime.start(id);
    expect(await fetchIndex(await runtime.resolvePort(id, 8080))).toBe("gpu-rental busybox ok\n");
    expect(await execIn(docker, containerName(id), ["cat", "/data/file"])).toEqual({ exitCode: 0, output: "kept\n" });
    expect(exits).toEqual([]);
  });

  it("reports a container killed behind its back", async () => {
    await docker.getContainer(containerName(id)).kill();
    // Other files' runtimes of the same scope share the engine, and their stops are heard here too.
    const own = () => exits.filter((exit) => exit.instanceId === id);
    await waitUntil(() => (own().length > 0 ? true : undefined), "die event");
    expect(own()).toEqual([{ instanceId: id, state: "error", message: "container exited with code 137" }]);
  });

  it("destroys container and network, idempotently", async () => {
    await runtime.destroy(id);
    await runtime.destroy(id);
    expect(statusOf(await docker.getContainer(containerName(id)).inspect().catch((e: unknown) => e))).toBe(404);
    expect(statusOf(await docker.getNetwork(networkName(id)).inspect().catch((e: unknown) => e))).toBe(404);
    expect((await runtime.list()).map((c) => c.instanceId)).not.toContain(id);
    await expect(runtime.start(id)).rejects.toThrow(`no container for ${id}`);
  });
});

describe.skipIf(!hasEngine)("docker runtime logs and readiness against a real engine", () => {
  const docker = new Docker();
  const chatty = randomInstanceId();
  const slowServer = randomInstanceId();
  const verbose = randomInstanceId();
  const cacheDir = useTempDir("docker-logs-cache-");
  let runtime: DockerRuntime;

  beforeAll(() => {
    runtime = new DockerRuntime({ modelCacheDir: cacheDir.path, stopTimeoutSeconds: 1, docker, scope: ENGINE_TESTS_SCOPE });
  });
  afterAll(async () => {
    for (const id of [chatty, slowServer, verbose]) await runtime.destroy(id);
    await runtime.close();
  });

  it("reads stdout and stderr in one log with their times; tails count both; a follow gets later lines and ends when the container stops", async () => {
    const script = "echo out one; echo err one >&2; echo out two; exec sleep 600";
    await runtime.create(testSpec(chatty, { image: TEST_IMAGE, ports: [], gpu_indices: [], command: ["sh", "-c", script] }), () => {});
    expect(await logLines(await runtime.logs(chatty, { tail: 10, follow: false }))).toEqual([]);
    const before = Date.now() - 1_000;
    await runtime.start(chatty);
    const all = await waitUntil(async () => {
      const got = await logLines(await runtime.logs(chatty, { tail: 10, follow: false }));
      return got.length === 3 ? got : undefined;
    }, "three lines");
    // Both streams, each line once, stdout's order kept (how the engine interleaves the two is its own).
    expect(all.map(({ stream, line }) => `${stream} ${line}`).sort()).toEqual(["stderr err one", "stdout out one", "stdout out two"]);
    expect(all.filter((l) => l.stream === "stdout").map((l) => l.line)).toEqual(["out one", "out two"]);
    for (const { t } of all) {
      expect(new Date(t).toISOString()).toBe(t);
      expect(Date.parse(t)).toBeGreaterThanOrEqual(before - 1_000);
      expect(Date.parse(t)).toBeLessThanOrEqual(Date.now());
    }
    expect(await logLines(await runtime.logs(chatty, { tail: 2, follow: false }))).toEqual(all.slice(-2));

    const follow = logLines(await runtime.logs(chatty, { tail: 1, follow: true }));
    // Written to the container's own stdout from outside its main process, after the follow began.
    expect(await execIn(docker, containerName(chatty), ["sh", "-c", "echo later > /proc/1/fd/1"])).toEqual({ exitCode: 0, output: "" });
    await waitUntil(async () => ((await logLines(await runtime.logs(chatty, { tail: 1, follow: false })))[0]?.line === "later" ? true : undefined), "the later line");
    await runtime.stop(chatty);
    expect((await follow).map((l) => l.line)).toEqual([all.at(-1)?.line, "later"]);
    // Stopped: the log is kept, and a follow is just its tail.
    expect((await logLines(await runtime.logs(chatty, { tail: 1, follow: true }))).map((l) => l.line)).toEqual(["later"]);
    await runtime.destroy(chatty);
    expect(await runtime.logs(chatty, { tail: 1, follow: false })).toBeNull();
  });

  it("a follow that is destroyed closes its connection to the engine", async () => {
    await runtime.create(testSpec(chatty, { image: TEST_IMAGE, ports: [], gpu_indices: [], command: ["sh", "-c", "echo hi; exec sleep 600"] }), () => {});
    await runtime.start(chatty);
    // The line is in the log before the follow asks for it. podman reads a follow's tail, then follows
    // from the end of the file: a line written in between is in neither, and (podman answering a
    // follow only with its first line) the follow would wait for the 600 s sleep.
    await waitUntil(async () => ((await logLines(await runtime.logs(chatty, { tail: 1, follow: false })))[0]?.line === "hi" ? true : undefined), "the line");
    const engineSockets = () => process.getActiveResourcesInfo().filter((kind) => kind === "PipeWrap").length;
    const idle = engineSockets();
    const follow = await runtime.logs(chatty, { tail: 1, follow: true });
    const first = await new Promise<LogLine>((resolve) => follow!.once("data", resolve));
    expect(first.line).toBe("hi");
    expect(engineSockets()).toBe(idle + 1);
    follow!.destroy();
    await waitUntil(() => (engineSockets() === idle ? true : undefined), "the engine connection closed");
    await runtime.destroy(chatty);
  });

  it("keeps no more of a container's log than its limit: the engine drops the oldest output, the newest stays readable", async () => {
    const limit = 64 * 1024;
    const limited = new DockerRuntime({ modelCacheDir: cacheDir.path, stopTimeoutSeconds: 1, docker, logFileBytes: limit, scope: ENGINE_TESTS_SCOPE });
    const written = 1024 * 1024;
    const script = `yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c ${written}; echo; echo the-last-line; exec sleep 600`;
    await limited.create(testSpec(verbose, { image: TEST_IMAGE, ports: [], gpu_indices: [], command: ["sh", "-c", script] }), () => {});
    await limited.start(verbose);
    const kept = await waitUntil(async () => {
      // Podman empties a full log file in place: a read that meets it half-written is refused (a 500
      // naming a line that "is not a valid container log line"), and the next read is whole.
      const logs = await limited.logs(verbose, { tail: 100_000, follow: false }).catch((error: Error) => {
        if (/is not a valid container log line/.test(error.message)) return null;
        throw error;
      });
      const lines = logs ? await logLines(logs) : [];
      return lines.at(-1)?.line === "the-last-line" ? lines : undefined;
    }, "the last line");
    const keptBytes = kept.reduce((sum, { line }) => sum + Buffer.byteLength(line) + 1, 0);
    // Docker rotates LOG_FILES files of the limit; podman keeps one, emptied when full (so only what
    // came after the last emptying). Either way far less than was written.
    expect(keptBytes).toBeLessThanOrEqual(LOG_FILES * limit);
    expect(keptBytes).toBeGreaterThan(0);
    await limited.destroy(verbose);
  });

  it("probes an HTTP port until its server answers, reporting it ready once, and stops with the container", async () => {
    const httpPorts = [{ port: 8080, path: "/" }];
    const script = "sleep 1; exec httpd -f -p 8080 -h /www";
    await runtime.create(testSpec(slowServer, { image: TEST_IMAGE, ports: [8080], gpu_indices: [], http_ports: httpPorts, command: ["sh", "-c", script] }), () => {});
    expect(await runtime.httpPorts(slowServer)).toEqual(httpPorts);
    await runtime.start(slowServer);
    const reports: PortReadiness[] = [];
    const probes = new ReadinessProbes(runtime, (r) => reports.push(r), { untilReadyMs: 100, whileReadyMs: 100, timeoutMs: 1_000 });
    probes.start(slowServer);
    await waitUntil(() => (reports.length > 0 ? true : undefined), "ready", 20_000);
    // Checked again and again while ready, without a new report.
    const endpoint = await runtime.resolvePort(slowServer, 8080);
    expect(await fetchIndex(endpoint)).toBe("gpu-rental busybox ok\n");
    expect(reports).toEqual([{ instance_id: slowServer, ready_ports: [8080] }]);
    expect(probes.snapshot()).toEqual([{ instance_id: slowServer, ready_ports: [8080] }]);
    await runtime.stop(slowServer);
    await waitUntil(() => (probes.probing(slowServer) ? undefined : true), "probing to end with the container");
    expect(probes.snapshot()).toEqual([]);
  });
});

/** A log stream's lines, once it ends. */
async function logLines(source: Readable | null): Promise<LogLine[]> {
  if (!source) throw new Error("no logs");
  const lines: LogLine[] = [];
  for await (const line of source) lines.push(line as LogLine);
  return lines;
}

async function fetchIndex(endpoint: { host: string; port: number } | null): Promise<string> {
  if (!endpoint) throw new Error("no endpoint");
  return waitUntil(async () => {
    const res = await fetch(`http://${endpoint.host}:${endpoint.port}/index.html`).catch(() => null);
    return res?.ok ? res.text() : undefined;
  }, "httpd answers");
}
