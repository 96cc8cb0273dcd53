// The real agent as a whole on the Docker runtime: the dev agent's process with `--runtime docker`
// on a real engine (podman, as root, like CI) joins the real stack (wrangler dev) as its own machine,
// and the MachineDO's commands launch, stop, start and destroy a container of the local dev-server
// image (scripts/ci/podman.sh), which the proxy reaches over HTTP, SSE and WebSocket, whose logs
// stream, and into which the real OpenSSH client opens sessions (Docker exec). The stack admits that `localhost/` image (DEV_LOCAL_IMAGES, IMAGE_REGISTRIES) here only.
// Without an engine or the image the suite is skipped, saying why; REQUIRE_DOCKER_ENGINE=1 makes
// that a failure. Sets the tenant firewall, which the agent checks, under the machine-wide lock.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { BLOCK_BYTES, payloadBlock, payloadSha256 } from "../../host-agent/dev/container/seeded-bytes.ts";
import { containerName } from "../../host-agent/runtime/docker-container-config.ts";
import { DEFAULT_NETWORK_POOL } from "../../host-agent/runtime/subnet-pool.ts";
import { startChild, type Child } from "../../scripts/dev/processes.ts";
import { recordEngine, type EngineRecorder } from "../support/agent/engine-recorder.ts";
import { readEventArrivals } from "../support/agent/event-arrivals.ts";
import { lockFirewall } from "../support/agent/firewall-lock.ts";
import { NODE_BINARY } from "../support/agent/node-binary.ts";
import { poll, startE2eStack, type E2eStack, type Instance } from "./support/e2e-stack.ts";
import { cliEnv, runCommand, runGpu } from "./support/gpu-cli.ts";
import { missingOpenSsh } from "./support/openssh.ts";
import { testTempDir } from "../support/agent/temp-dir.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const IMAGE = "localhost/gpu-rental-dev-server:latest";
const FIREWALL_SCRIPT = join(ROOT, "deploy/host-agent/firewall.sh");
/** A model no dev machine has: every launch of it lands on this file's Docker host. */
const GPU_MODEL = "a100-80gb";

const docker = new Docker();
/** Why the suite cannot run here, or null when it can. */
const missing = !process.env.DOCKER_HOST
  ? "DOCKER_HOST is not set"
  : !process.env.DOCKER_HOST.startsWith("unix://")
    ? `DOCKER_HOST ${process.env.DOCKER_HOST} is not a unix socket, which this test records the agent's calls on`
  : !(await docker.ping().then(() => true, () => false))
    ? `no engine answers at ${process.env.DOCKER_HOST}`
    : !(await docker.getImage(IMAGE).inspect().then(() => true, () => false))
      ? `the engine has no ${IMAGE}`
      : null;

if (missing && process.env.REQUIRE_DOCKER_ENGINE === "1") {
  describe("the real agent on the Docker runtime", () => {
    it("needs a Docker-compatible engine with the dev-server image", () => {
      throw new Error(`REQUIRE_DOCKER_ENGINE=1 but ${missing}: run scripts/ci/podman.sh (after npm ci) and export the DOCKER_HOST it prints`);
    });
  });
}

describe.skipIf(missing !== null)(`the real agent on the Docker runtime${missing ? ` (skipped: ${missing}; run scripts/ci/podman.sh)` : ""}`, () => {
  let stack: E2eStack;
  let agent: Child;
  let engine: EngineRecorder;
  let stateDir: string;
  let unlockFirewall: (() => Promise<void>) | undefined;
  let instance: Instance;

  const auth = () => ({ authorization: `Bearer ${stack.key}` });
  const proxied = (path: string, init: RequestInit = {}) => fetch(stack.proxyUrl(instance, 8000, path), { ...init, headers: auth() });
  const read = async () => (await stack.api<Instance>("GET", `/v1/instances/${instance.id}`)).body;
  const inspect = () => docker.getContainer(containerName(instance.id)).inspect();
  const answers = () => poll(() => proxied("/health").then((r) => r.status, () => 0), (status) => status === 200);
  /** A CLI home with a new SSH key added to the account: what `gpu ssh` needs. */
  const sshClient = async () => {
    const home = testTempDir("docker-agent-ssh-");
    const key = join(home, "id_ed25519");
    await promisify(execFile)("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "docker-e2e", "-f", key]);
    const env = cliEnv(home, { GPU_API_URL: stack.baseUrl, GPU_API_KEY: stack.key });
    expect((await runGpu(["ssh-keys", "add", `${key}.pub`], env)).code).toBe(0);
    return { env, key };
  };

  beforeAll(async () => {
    // The agent checks the firewall before its first hello and puts it back when it goes: no other test may take it away meanwhile.
    unlockFirewall = await lockFirewall();
    await promisify(execFile)("bash", [FIREWALL_SCRIPT, DEFAULT_NETWORK_POOL]);
    stack = await startE2eStack({ IMAGE_REGISTRIES: "localhost", DEV_LOCAL_IMAGES: "1" });
    const created = await fetch(`${stack.baseUrl}/admin/v1/machines`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "docker-host" }),
    }).then((r) => r.json() as Promise<{ id: number; agent_token: string }>);
    stateDir = await mkdtemp(join(tmpdir(), "docker-agent-"));
    engine = await recordEngine(process.env.DOCKER_HOST!.slice("unix://".length));
    // This engine cannot enforce disk_gb (overlay on extfs): the host takes instances all the same, each saying so.
    agent = startChild("docker-agent", NODE_BINARY, [
      join(ROOT, "host-agent/dev/dev-main.ts"), "--server", stack.baseUrl, "--token", created.agent_token, "--runtime", "docker",
      "--gpus", `${GPU_MODEL}:1`, "--state-dir", stateDir, "--unenforced-disk", "accept",
      // Its own containers only: the engine's other test containers (other files, other checkouts) are not its to reconcile away.
    ], { ...process.env, DOCKER_HOST: engine.dockerHost, DEV_ENGINE_SCOPE: `e2e-${process.pid}` }, false);
    await poll(() => stack.api<{ gpus: { model: string; free_gpus: number }[] }>("GET", "/v1/gpus"),
      (r) => r.body.gpus.some((g) => g.model === GPU_MODEL && g.free_gpus === 1), 30_000).catch((error: Error) => {
      throw new Error(`${error.message}\n--- docker agent\n${agent.output().slice(-3000)}`);
    });
    instance = await stack.launchRunning({ gpu_model: GPU_MODEL, gpu_count: 1, template: "custom", image: IMAGE });
    await answers();
  }, 150_000);

  afterAll(async () => {
    if (instance) await docker.getContainer(containerName(instance.id)).remove({ force: true }).catch(() => undefined);
    await agent?.stop();
    await engine?.close();
    await stack?.stop();
    await unlockFirewall?.();
    if (stateDir) await rm(stateDir, { recursive: true, force: true });
  });

  it("the launch made a container of the image on the engine, its synthetic GPU asking the engine for no device", async () => {
    const info = await inspect();
    expect(info.Config.Image).toBe(IMAGE);
    expect(info.Config.Labels).toMatchObject({ "gpu-rental.instance": instance.id });
    expect(info.State.Running).toBe(true);
    // The dev agent's GPUs are not devices: a request for them would be refused by Docker. podman
    // takes one and leaves it out of `inspect`, so what the agent asked for is read on the way.
    const created = engine.creates.find((body) => (body.Labels as Record<string, string> | undefined)?.["gpu-rental.instance"] === instance.id);
    expect(created?.HostConfig).toMatchObject({ ShmSize: 8 * 1024 ** 3 });
    expect(created?.HostConfig).not.toHaveProperty("DeviceRequests");
  });

  it("proxies a download with the exact bytes: the digest of what arrived is the one the container reports", async () => {
    const size = 3 * BLOCK_BYTES * 7 + 12_345;
    const body = Buffer.from(await (await proxied(`/bytes?n=${size}`)).arrayBuffer());
    const reported = (await (await proxied(`/bytes/sha256?n=${size}`)).json()) as { sha256: string };
    expect(body.length).toBe(size);
    expect(reported.sha256).toBe(payloadSha256(size));
    expect(createHash("sha256").update(body).digest("hex")).toBe(reported.sha256);
  });

  it("proxies server-sent events one by one, as the container sends them", async () => {
    const response = await proxied("/sse?n=4&interval_ms=300");
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = (await readEventArrivals(response)).events.filter((e) => e.event.startsWith("data:"));
    expect(events.map((e) => e.event)).toEqual([0, 1, 2, 3].map((i) => `data: {"i": ${i}}`));
    expect(events[3]!.atMs - events[0]!.atMs).toBeGreaterThan(600);
  });

  it("proxies a WebSocket: seeded binary messages come back whole and in order", async () => {
    const socket = new WebSocket(stack.proxyUrl(instance, 8000, "/ws").replace(/^http/, "ws"), { headers: auth() });
    const received: Buffer[] = [];
    const blocks = 24;
    const echoed = new Promise<void>((done, fail) => {
      socket.on("message", (data: Buffer) => received.push(data) === blocks && done());
      socket.on("error", fail);
    });
    await new Promise((opened) => socket.once("open", opened));
    for (let i = 0; i < blocks; i++) socket.send(payloadBlock(i));
    await echoed;
    socket.close();
    expect(createHash("sha256").update(Buffer.concat(received)).digest("hex")).toBe(payloadSha256(blocks * BLOCK_BYTES));
  });

  it("streams the container's logs: the tail, then a line written while following", async () => {
    const lines = async () => (await (await fetch(`${stack.baseUrl}/v1/instances/${instance.id}/logs?tail=10000`, { headers: auth() })).text()).split("\n");
    expect(await lines()).toEqual(expect.arrayContaining(["dev container: loading no model, ready in 0 ms", "dev container: no GPU here, answers come from a stand-in model"]));
    const follow = await fetch(`${stack.baseUrl}/v1/instances/${instance.id}/logs?tail=1&follow=true`, { headers: auth() });
    expect(follow.headers.get("content-type")).toBe("text/event-stream");
    const reader = follow.body!.pipeThrough(new TextDecoderStream()).getReader();
    const marker = `/echo/followed-${Date.now()}`;
    await proxied(marker);
    let text = "";
    while (!text.includes(`GET ${marker} 200`)) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the follow ended before the line came: ${text}`);
      text += value;
    }
    await reader.cancel();
    expect(text).toMatch(new RegExp(`"stream":"stdout","line":"GET ${marker} 200"`));
  });

  it.skipIf(missingOpenSsh !== null)("SSH with the real OpenSSH client runs in the container (Docker exec): output, exit status, and sftp's clear refusal in an image without sftp-server", async () => {
    const { env, key } = await sshClient();
    const ran = await runGpu(["ssh", instance.id, "-i", key, "--", "echo in-$(hostname) $((6*7)); exit 5"], env);
    expect(ran).toMatchObject({ code: 5, stdout: `in-${(await inspect()).Config.Hostname} 42\n` });
    const sftp = () => runCommand("sftp", ["-o", `ProxyCommand=${process.execPath} ${join(ROOT, "cli/gpu.ts")} ssh-proxy ${instance.id}`, "-o", "StrictHostKeyChecking=no",
      "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-i", key, "-b", "/dev/null", `root@${instance.id}`], env);
    // podman now and then resets the attach of an exec that ends at once, its output with it
    // ("read unixpacket … attach: connection reset by peer"): a few tries.
    const refused = await poll(sftp, (r) => r.code !== 0 && r.stderr.includes("this image has no sftp-server"), 20_000);
    expect(refused.stderr).toContain("install it in the image (Debian and Ubuntu: openssh-sftp-server), or copy files with gpu cp");
  });

  it.skipIf(missingOpenSsh !== null)("a stop ends an open SSH session in the container, saying so", async () => {
    const { env, key } = await sshClient();
    const session = runGpu(["ssh", instance.id, "-i", key, "--", "echo started; sleep 600"], env);
    await poll(() => docker.getContainer(containerName(instance.id)).top().then((top) => top.Processes.some((p: string[]) => p.join(" ").includes("sleep 600")), () => false), (found) => found);
    expect((await stack.api("POST", `/v1/instances/${instance.id}/stop`)).status).toBe(204);
    const ended = await session;
    expect(ended.stdout).toBe("started\n");
    expect(ended.code).toBe(255);
    expect(ended.stderr).toContain("the instance is being stopped: this session has ended");
    await poll(read, (i) => i.status === "stopped");
    expect((await stack.api("POST", `/v1/instances/${instance.id}/start`)).status).toBe(204);
    await poll(read, (i) => i.status === "running");
    await answers();
  }, 90_000);

  it("stops and starts the container again, the proxy answering once more", async () => {
    expect((await stack.api("POST", `/v1/instances/${instance.id}/stop`)).status).toBe(204);
    await poll(read, (i) => i.status === "stopped");
    expect((await inspect()).State.Running).toBe(false);
    const refused = await proxied("/health");
    expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([409, "not_running"]);
    expect((await stack.api("POST", `/v1/instances/${instance.id}/start`)).status).toBe(204);
    await poll(read, (i) => i.status === "running");
    expect((await inspect()).State.Running).toBe(true);
    await answers();
  }, 60_000);

  it("destroys the container: gone from the engine", async () => {
    expect((await stack.api("DELETE", `/v1/instances/${instance.id}`)).status).toBe(204);
    await poll(() => inspect().then(() => "present", (error: { statusCode?: number }) => String(error.statusCode)), (state) => state === "404");
    await poll(read, (i) => i.status === "destroyed");
  }, 60_000);
});
