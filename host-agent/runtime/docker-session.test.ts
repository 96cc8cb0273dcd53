// SSH sessions' processes and files in a container through a real Docker-compatible engine
// (scripts/ci/podman.sh provides one): output on stdout and stderr, stdin, the exit status, a TTY of
// the size asked that follows a resize, tar archives in and out (what goes in owned by the container's
// user), and an upload in parts written as one file. Runs when DOCKER_HOST is set.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomInstanceId, testSpec } from "../../test/support/agent/specs.ts";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { receiveUploadPart } from "../files/upload-part.ts";
import { UploadStaging } from "../files/upload-staging.ts";
import { NO_SFTP_SERVER, SFTP_COMMAND } from "../ssh/ssh-server.ts";
import { execIn } from "../../test/support/agent/docker-exec.ts";
import { containerName } from "./docker-container-config.ts";
import { DockerRuntime } from "./docker-runtime.ts";
import type { ExecProcess } from "./runtime.ts";
import { ENGINE_TESTS_SCOPE } from "../../test/support/agent/engine-scope.ts";
import { testTempDir } from "../../test/support/agent/temp-dir.ts";

const TEST_IMAGE = "localhost/gpu-rental-busybox:latest";

function collect(stream: Readable | null): () => string {
  let text = "";
  stream?.on("data", (chunk: Buffer) => (text += chunk.toString()));
  return () => text;
}

async function finished(process: ExecProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const stdout = collect(process.stdout);
  const stderr = collect(process.stderr);
  const code = await process.exit;
  return { code, stdout: stdout(), stderr: stderr() };
}

describe.skipIf(!process.env.DOCKER_HOST)("docker exec sessions", () => {
  const id = randomInstanceId();
  const cacheDir = useTempDir("docker-session-cache-");
  const uploads = useTempDir("docker-session-uploads-");
  const docker = new Docker();
  let runtime: DockerRuntime;

  beforeAll(async () => {
    runtime = new DockerRuntime({ modelCacheDir: cacheDir.path, stopTimeoutSeconds: 1, docker, scope: ENGINE_TESTS_SCOPE });
    await runtime.create(testSpec(id, { image: TEST_IMAGE, ports: [], gpu_indices: [], command: ["sh", "-c", "sleep 600"] }), () => {});
    await runtime.start(id);
  }, 60_000);
  afterAll(async () => {
    await runtime.destroy(id);
    await runtime.close();
  });

  it("runs a command: stdout and stderr apart, stdin read, the exit status returned", async () => {
    const process = (await runtime.exec(id, { command: "read line; echo got-$line; echo oops >&2; exit 3", env: { LANG: "C.UTF-8" }, pty: null }))!;
    process.stdin.end("hello\n");
    expect(await finished(process)).toEqual({ code: 3, stdout: "got-hello\n", stderr: "oops\n" });
  });

  it("the sftp subsystem in an image without sftp-server says so, and what to do instead, with status 127", async () => {
    const process = (await runtime.exec(id, { command: SFTP_COMMAND, env: {}, pty: null }))!;
    process.stdin.end();
    expect(await finished(process)).toEqual({ code: 127, stdout: "", stderr: `${NO_SFTP_SERVER}\n` });
  });

  it("gives a TTY of the asked size, and follows a resize", async () => {
    const process = (await runtime.exec(id, { command: "stty size; read _; stty size", env: { TERM: "xterm" }, pty: { cols: 91, rows: 33 } }))!;
    expect(process.stderr).toBeNull();
    const output = collect(process.stdout);
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.resize(120, 40);
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.stdin.write("\n");
    const code = await process.exit;
    expect(code).toBe(0);
    expect(output().replace(/\r/g, "").split("\n").filter((line) => /^\d+ \d+$/.test(line))).toEqual(["33 91", "40 120"]);
  });

  it("writes a tar into /data and reads it back, running and stopped; a missing path is null, a missing directory false", async () => {
    const source = testTempDir("docker-archive-");
    mkdirSync(join(source, "tree", "sub"), { recursive: true });
    writeFileSync(join(source, "tree", "sub", "file.txt"), "kept\n");
    // The archive as the agent has it, a stream of bytes already read (the files stream's body); a
    // child's stdout handed straight to the engine lost the archive on podman in 4 runs of 6.
    const pack = () => Readable.from([execFileSync("tar", ["-c", "-C", source, "tree"])]);
    expect(await runtime.writeArchive(id, "/data", pack())).toBe(true);
    expect(await runtime.writeArchive(id, "/data/no-such-dir", pack())).toBe(false);
    expect(await runtime.readArchive(id, "/data/nothing-here")).toBeNull();
    await runtime.stop(id);
    const archive = (await runtime.readArchive(id, "/data/tree"))!;
    const listing = spawn("tar", ["-t"], { stdio: ["pipe", "pipe", "ignore"] });
    archive.pipe(listing.stdin);
    const names = collect(listing.stdout);
    await once(listing, "close");
    expect(names().split("\n").filter(Boolean).map((name) => name.replace(/\/$/, "")).sort()).toEqual(["tree", "tree/sub", "tree/sub/file.txt"]);
    await runtime.start(id);
  });

  it("gives what it writes to the container's user, whatever the archive says", async () => {
    // A container of an image that runs as a user of its own (as USER in a Dockerfile sets it).
    const other = randomInstanceId();
    const container = await docker.createContainer({ name: containerName(other), Image: TEST_IMAGE, User: "1234:1234", Cmd: ["sleep", "600"] });
    try {
      await container.start();
      const source = testTempDir("docker-owner-");
      writeFileSync(join(source, "notes.txt"), "mine\n");
      const archive = execFileSync("tar", ["-c", "--owner=4321", "--group=4321", "-C", source, "notes.txt"]);
      expect(await runtime.writeArchive(other, "/tmp", Readable.from([archive]))).toBe(true);
      expect(await execIn(docker, containerName(other), ["stat", "-c", "%u:%g", "/tmp/notes.txt"])).toEqual({ exitCode: 0, output: "1234:1234\n" });
    } finally {
      await container.remove({ force: true });
    }
  });

  it("an upload in parts becomes one regular file in /data, its final part written while stopped; a wrong offset and a missing directory are refused", async () => {
    const staging = new UploadStaging(uploads.path);
    const content = randomBytes(300_000);
    const part = (path: string, offset: number, final: boolean, bytes: Buffer) =>
      receiveUploadPart(runtime, staging, {
        type: "files_open", stream: 1, instance_id: id, op: "put", path, upload: { id: "docker-upload-000001", offset, final, max_bytes: 1_000_000 },
      }, Readable.from([bytes]));
    expect(await part("/data/parts.bin", 0, false, content.subarray(0, 100_000))).toEqual({ status: 202, uploadOffset: 100_000 });
    expect(await part("/data/parts.bin", 5, false, Buffer.from("x"))).toMatchObject({ status: 409, error: "conflict", uploadOffset: 100_000 });
    await runtime.stop(id);
    // podman answers 404 for a stopped container's paths for a moment after the stop, now and then.
    for (let tries = 0; ; tries++) {
      const archive = await runtime.readArchive(id, "/data");
      archive?.destroy();
      if (archive) break;
      if (tries === 50) throw new Error("podman still answers 404 for /data 5 s after the stop");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await part("/data/parts.bin", 100_000, true, content.subarray(100_000))).toEqual({ status: 204 });
    expect(await staging.size({ instanceId: id, uploadId: "docker-upload-000001" })).toBe(0);
    const into = testTempDir("docker-upload-");
    const extract = spawn("tar", ["-xv", "-C", into], { stdio: ["pipe", "pipe", "ignore"] });
    (await runtime.readArchive(id, "/data/parts.bin"))!.pipe(extract.stdin);
    const listed = collect(extract.stdout);
    await once(extract, "close");
    expect(listed().trim()).toBe("parts.bin");
    expect(readFileSync(join(into, "parts.bin")).equals(content)).toBe(true);
    expect(await part("/data/no-such-dir/x.bin", 0, true, Buffer.from("x"))).toMatchObject({ status: 404, error: "not_found" });
    await runtime.start(id);
  });

  it("is null for a container that is not running", async () => {
    expect(await runtime.exec(randomInstanceId(), { command: "true", env: {}, pty: null })).toBeNull();
  });
});
