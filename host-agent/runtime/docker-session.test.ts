// SSH sessions' processes and files in a container through a real Docker-compatible engine
// (scripts/ci/podman.sh provides one): output on stdout and stderr, stdin, the exit status, a TTY of
// the size asked that follows a resize, and tar archives in and out. Runs when DOCKER_HOST is set.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomInstanceId, testSpec } from "../../test/support/agent/specs.ts";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { NO_SFTP_SERVER, SFTP_COMMAND } from "../ssh/ssh-server.ts";
import { DockerRuntime } from "./docker-runtime.ts";
import type { ExecProcess } from "./runtime.ts";

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
  let runtime: DockerRuntime;

  beforeAll(async () => {
    runtime = new DockerRuntime({ modelCacheDir: cacheDir.path, stopTimeoutSeconds: 1, docker: new Docker() });
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
    const source = mkdtempSync(join(tmpdir(), "docker-archive-"));
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

  it("is null for a container that is not running", async () => {
    expect(await runtime.exec(randomInstanceId(), { command: "true", env: {}, pty: null })).toBeNull();
  });
});
