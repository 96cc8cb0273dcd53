// The real agent process (local runtime) against a fake MachineDO speaking protocol/: hello,
// heartbeats, commands, proxied HTTP with flow control, WebSockets, reconnects, malformed frames.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payloadSha256 } from "./dev/container/seeded-bytes.ts";
import { DataKind } from "../protocol/mux/frames.ts";
import { INITIAL_WINDOW_BYTES } from "../protocol/mux/flow-control.ts";
import { PROTOCOL_VERSION } from "../protocol/version.ts";
import { startAgentChild, type AgentChild } from "../test/support/agent/agent-child.ts";
import { FakeMachineDo } from "../test/support/agent/fake-machine-do.ts";
import { sendHttpRequest, streamOutcome, type ProxiedResponse } from "../test/support/agent/proxy-client.ts";
import { testSpec } from "../test/support/agent/specs.ts";
import { waitUntil } from "../test/support/agent/wait-until.ts";

const ID = "i-agenttest2345abc";
const HTTP_PORTS = [{ port: 8000, path: "/health" }, { port: 8001, path: "/api" }];
const HEARTBEAT_MS = 150;
let fake: FakeMachineDo;
let agent: AgentChild;
let stateDir: string;
let nextStream = 1;

beforeAll(async () => {
  fake = new FakeMachineDo("agent-secret");
  const server = await fake.listen();
  stateDir = await mkdtemp(join(tmpdir(), "agent-test-"));
  await mkdir(join(stateDir, "hf-cache", "hub", "models--Qwen--Qwen2.5-0.5B-Instruct", "snapshots", "abc123"), { recursive: true });
  agent = startAgentChild(["--server", server, "--token", "agent-secret", "--runtime", "local", "--gpus", "rtx4090:2", "--state-dir", stateDir], {
    DEV_READY_DELAY_MS: "400",
    DEV_PULL_MS: "40",
    AGENT_METRICS_INTERVAL_MS: "1000",
  });
});
afterAll(async () => {
  await agent?.stop();
  await fake?.close();
  await rm(stateDir, { recursive: true, force: true });
});

// One agent lives through the whole file, so the tests run in order, like an instance's life.
describe("host agent against a fake MachineDO", () => {
  it("says hello with its GPUs, driver and CUDA versions, containers and cached models (no disk: the local runtime reserves none), then heartbeats at the welcome's pace", async () => {
    const hello = await fake.waitFor("hello");
    expect(hello).toEqual({
      type: "hello",
      protocol: PROTOCOL_VERSION,
      agent_version: expect.any(String),
      runtime: "local",
      hostname: expect.any(String),
      driver_version: "580.126.09",
      cuda_version: "13.0",
      gpus: [
        { index: 0, model: "rtx4090", name: "NVIDIA GeForce RTX 4090", uuid: "GPU-local-0", vram_mb: 24564 },
        { index: 1, model: "rtx4090", name: "NVIDIA GeForce RTX 4090", uuid: "GPU-local-1", vram_mb: 24564 },
      ],
      containers: [],
      cached_models: ["Qwen/Qwen2.5-0.5B-Instruct"],
      readiness: [],
      degraded: "",
      host: { memory_bytes: totalmem(), cpus: availableParallelism() },
      // Made on the first start, kept in the state dir.
      ssh_host_key: expect.stringMatching(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]+=*$/),
    });
    expect(readFileSync(join(stateDir, "ssh_host_ed25519_key"), "utf8")).toContain("OPENSSH PRIVATE KEY");
    fake.send({ type: "welcome", protocol: PROTOCOL_VERSION, machine_id: 7, heartbeat_ms: HEARTBEAT_MS });
    await waitUntil(() => (fake.messages().filter((m) => m.type === "heartbeat").length >= 2 ? true : undefined), "two heartbeats");
    await agent.waitForLog("connected", (l) => l.machine_id === 7);
  });

  it("creates and starts a container: pulling, pull progress, creating, running, ack", async () => {
    const from = fake.received.length;
    fake.send({ type: "command", command_id: "c-create", op: "create", instance_id: ID, spec: testSpec(ID, { ports: [8000, 8001], http_ports: HTTP_PORTS }) });
    await fake.waitFor("ack", (m) => m.command_id === "c-create", from);
    const lifecycle = fake
      .messages()
      .filter((m) => m.type === "container" || m.type === "pull_progress" || m.type === "ack");
    expect(lifecycle).toEqual([
      { type: "container", instance_id: ID, state: "pulling", message: "" },
      ...[0, 25, 50, 75, 100].map((percent) => ({ type: "pull_progress", instance_id: ID, percent })),
      { type: "container", instance_id: ID, state: "creating", message: "" },
      { type: "container", instance_id: ID, state: "running", message: "" },
      { type: "ack", command_id: "c-create", ok: true, error: "" },
    ]);
  });

  it("answers upstream_unavailable while the model server loads, then proxies once it is ready", async () => {
    const early = nextStream++;
    sendHttpRequest(fake, early, ID, "/health");
    expect(await streamOutcome(fake, early)).toEqual({ abort: "upstream_unavailable" });
    const ready = await waitUntil(async () => {
      const stream = nextStream++;
      sendHttpRequest(fake, stream, ID, "/health");
      const outcome = await streamOutcome(fake, stream);
      return "status" in outcome ? outcome : undefined;
    }, "model server ready");
    expect(ready.status).toBe(200);
    expect(ready.body.toString()).toBe("ok");
  });

  it("reports its HTTP ports ready as their readiness paths answer, each change once", async () => {
    const last = await waitUntil(() => fake.messages().filter((m) => m.type === "readiness").find((m) => m.ready_ports.length === 2), "both ports ready");
    expect(last).toEqual({ type: "readiness", instance_id: ID, ready_ports: [8000, 8001] });
    const reports = fake.messages().filter((m) => m.type === "readiness").map((m) => m.ready_ports);
    // One port may get there first; no report repeats, and none says less than the one before.
    expect(reports.length).toBeLessThanOrEqual(2);
    expect(reports.at(-1)).toEqual([8000, 8001]);
    if (reports.length === 2) expect([[8000], [8001]]).toContainEqual(reports[0]);
  });

  it("samples the running container every interval: its CPU and memory, and its GPU, which follows the requests it serves", async () => {
    const metrics = () => fake.messages().filter((m) => m.type === "metrics");
    const first = await waitUntil(() => metrics().find((m) => m.instances[0]?.cpu_percent !== null), "a sample with a CPU rate");
    // GPU 1 is nobody's: only the container's GPU 0 goes with it.
    expect(first).toEqual({
      type: "metrics",
      instances: [{
        instance_id: ID, cpu_percent: expect.any(Number), cpu_seconds: expect.any(Number), memory_used_mib: expect.any(Number),
        gpus: [{
          index: 0, util_percent: expect.any(Number), memory_used_mib: expect.any(Number), memory_total_mib: 24564,
          power_w: expect.any(Number), power_limit_w: 450, temperature_c: expect.any(Number), sm_clock_mhz: expect.any(Number),
        }],
      }],
    });
    expect(first.type === "metrics" && first.instances[0]!.memory_used_mib).toBeGreaterThan(10);
    const before = metrics().length;
    for (let i = 0; i < 40; i++) {
      const stream = nextStream++;
      sendHttpRequest(fake, stream, ID, "/health");
      await streamOutcome(fake, stream);
    }
    const busy = await waitUntil(() => metrics().slice(before).find((m) => (m.instances[0]?.gpus[0]?.util_percent ?? 0) >= 50), "a busy GPU in a sample");
    expect(busy.type === "metrics" && busy.instances[0]!.gpus[0]!.memory_used_mib).toBeGreaterThan(24564 / 2);
  });

  it("answers a logs request like an HTTP response: the container's last lines as text", async () => {
    const stream = nextStream++;
    fake.send({ type: "logs_open", stream, instance_id: ID, tail: 2, follow: false, format: "text" });
    const response = (await streamOutcome(fake, stream)) as ProxiedResponse;
    expect(response.status).toBe(200);
    expect(response.headers).toContainEqual(["content-type", "text/plain; charset=utf-8"]);
    expect(response.body.toString().split("\n")).toHaveLength(3);
    expect(response.body.toString()).toMatch(/GET \/(health|api) 200\n$/);
    const unknown = nextStream++;
    fake.send({ type: "logs_open", stream: unknown, instance_id: "i-nosuchcontainera", tail: 2, follow: false, format: "text" });
    expect(await streamOutcome(fake, unknown)).toEqual({ status: 404, headers: [], body: Buffer.alloc(0) });
  });

  it("proxies a request with a body: head, body frames, end, and credit returned for the body", async () => {
    const stream = nextStream++;
    const body = randomBytes(3 * 1024 * 1024 + 5);
    sendHttpRequest(fake, stream, ID, "/echo/x%20y?y=1", { method: "POST", body, headers: [["X-Test", "a"], ["x-test", "b"], ["Host", "evil"]] });
    const response = (await streamOutcome(fake, stream)) as ProxiedResponse;
    expect(response.status).toBe(200);
    expect(response.headers).toContainEqual(["content-type", "application/json"]);
    expect(JSON.parse(response.body.toString())).toEqual({
      method: "POST",
      path: "/echo/x%20y",
      query: "y=1",
      headers: expect.objectContaining({ host: "localhost:8000", "x-test": "a, b" }),
      body_bytes: body.byteLength,
      body_sha256: createHash("sha256").update(body).digest("hex"),
    });
    const credit = fake.streamMessages(stream).flatMap((m) => (m.type === "window" ? [m.bytes] : []));
    expect(credit.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2 * 1024 * 1024);
  });

  it("stops a download at the initial window until credit comes back, then finishes it", async () => {
    const stream = nextStream++;
    const total = 20_000_000;
    sendHttpRequest(fake, stream, ID, `/bytes?n=${total}`);
    await waitUntil(() => (fake.streamBytes(stream).byteLength >= INITIAL_WINDOW_BYTES ? true : undefined), "first window of data");
    await sleep(300);
    expect(fake.streamBytes(stream).byteLength).toBe(INITIAL_WINDOW_BYTES);
    let granted = INITIAL_WINDOW_BYTES;
    const outcome = await waitUntil(() => {
      const received = fake.streamBytes(stream).byteLength;
      if (granted - received < 2 * 1024 * 1024 && granted < total) {
        fake.send({ type: "window", stream, bytes: 4 * 1024 * 1024 });
        granted += 4 * 1024 * 1024;
      }
      return fake.streamMessages(stream).find((m) => m.type === "end");
    }, "download end");
    expect(outcome).toEqual({ type: "end", stream });
    const bytes = fake.streamBytes(stream);
    expect(bytes.byteLength).toBe(total);
    // Every byte, in order: the seeded payload's digest (a dropped, doubled or reordered frame changes it).
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(payloadSha256(total));
  });

  it("stops sending when the MachineDO aborts a stream", async () => {
    const stream = nextStream++;
    sendHttpRequest(fake, stream, ID, "/sse?n=50&interval_ms=20");
    await waitUntil(() => (fake.streamBytes(stream).byteLength > 0 ? true : undefined), "first event");
    fake.send({ type: "abort", stream, reason: "client went away" });
    await sleep(150);
    const frozen = fake.streamBytes(stream).byteLength;
    await sleep(150);
    expect(fake.streamBytes(stream).byteLength).toBe(frozen);
    expect(fake.streamMessages(stream).some((m) => m.type === "end")).toBe(false);
  });

  it("proxies a WebSocket: subprotocol, text and binary echo, upstream close code", async () => {
    const stream = nextStream++;
    fake.send({ type: "ws_open", stream, instance_id: ID, port: 8001, path: "/ws", headers: [["Origin", "https://x"]], protocols: ["chat.v1", "other"] });
    expect(await fake.waitFor("ws_accepted", (m) => m.stream === stream)).toEqual({ type: "ws_accepted", stream, protocol: "chat.v1" });
    fake.sendData(DataKind.wsText, stream, Buffer.from("héllo"));
    fake.sendData(DataKind.wsBinary, stream, Buffer.from([0, 1, 2]));
    const frames = await waitUntil(() => {
      const echoed = fake.received.flatMap((r) => ("frame" in r && r.frame.stream === stream ? [r.frame] : []));
      return echoed.length === 2 ? echoed : undefined;
    }, "two echoes");
    expect(frames.map((f) => [f.kind, Buffer.from(f.payload).toString("hex")])).toEqual([
      [DataKind.wsText, Buffer.from("héllo").toString("hex")],
      [DataKind.wsBinary, "000102"],
    ]);
    fake.sendData(DataKind.wsText, stream, Buffer.from("close:4002:done"));
    expect(await fake.waitFor("ws_close", (m) => m.stream === stream)).toEqual({ type: "ws_close", stream, code: 4002, reason: "done" });
  });

  it("passes a client's close to the upstream and relays the upstream's answer", async () => {
    const stream = nextStream++;
    fake.send({ type: "ws_open", stream, instance_id: ID, port: 8000, path: "/ws", headers: [], protocols: [] });
    expect(await fake.waitFor("ws_accepted", (m) => m.stream === stream)).toEqual({ type: "ws_accepted", stream, protocol: "" });
    fake.send({ type: "ws_close", stream, code: 1000, reason: "bye" });
    expect(await fake.waitFor("ws_close", (m) => m.stream === stream)).toEqual({ type: "ws_close", stream, code: 1000, reason: "bye" });
  });

  it("aborts a WebSocket to a port nothing listens on", async () => {
    const stream = nextStream++;
    fake.send({ type: "ws_open", stream, instance_id: ID, port: 9999, path: "/ws", headers: [], protocols: [] });
    expect(await fake.waitFor("abort", (m) => m.stream === stream)).toEqual({ type: "abort", stream, reason: "upstream_unavailable" });
  });

  it("logs malformed frames and carries on", async () => {
    fake.sendRaw("not json");
    fake.sendRaw(JSON.stringify({ type: "bogus" }));
    fake.sendRaw(JSON.stringify({ type: "window", stream: 0, bytes: 1 }));
    fake.sendRaw(Buffer.from([1, 0, 0]));
    fake.sendRaw(Buffer.from([9, 0, 0, 0, 1, 42]));
    await waitUntil(() => (agent.logs.filter((l) => l.msg.startsWith("malformed")).length >= 5 ? true : undefined), "five malformed-frame logs");
    expect(agent.logs.filter((l) => l.msg.startsWith("malformed")).map((l) => l.reason)).toEqual([
      expect.stringContaining("not JSON"),
      expect.stringContaining("type"),
      expect.stringContaining("stream"),
      expect.stringContaining("shorter than its header"),
      expect.stringContaining("kind 9"),
    ]);
    const stream = nextStream++;
    sendHttpRequest(fake, stream, ID, "/health");
    expect(await streamOutcome(fake, stream)).toMatchObject({ status: 200 });
  });

  it("reconnects after the server drops it and says hello again with its containers", async () => {
    const connections = fake.connectionCount;
    fake.dropConnection();
    await waitUntil(() => (fake.connectionCount > connections ? true : undefined), "reconnect");
    const hello = await waitUntil(() => fake.messages(fake.connectionCount).find((m) => m.type === "hello"), "second hello");
    expect(hello).toMatchObject({ containers: [{ instance_id: ID, state: "running", message: "" }], readiness: [{ instance_id: ID, ready_ports: [8000, 8001] }] });
    fake.send({ type: "welcome", protocol: PROTOCOL_VERSION, machine_id: 7, heartbeat_ms: HEARTBEAT_MS, settles_streams: true });
    await waitUntil(() => (agent.logs.filter((line) => line.msg === "connected").length === 2 ? true : undefined), "connected again");
  });

  it("counts replies it sent whole until the MachineDO settles them, as its welcome said it does: past the instance's share a new reply waits", async () => {
    const reply = 4_000_000;
    // A new connection, so nothing is counted yet. Four, each within its window, sent whole with no
    // credit back: together just short of the instance's 16 MiB share (send-budget.ts), counted
    // until the MachineDO settles them.
    const whole = Array.from({ length: 4 }, () => nextStream++);
    for (const stream of whole) sendHttpRequest(fake, stream, ID, `/bytes?n=${reply}`);
    await waitUntil(() => (whole.every((stream) => fake.streamMessages(stream).some((m) => m.type === "end")) ? true : undefined), "the replies sent whole");
    const waiting = nextStream++;
    sendHttpRequest(fake, waiting, ID, `/bytes?n=${reply}`);
    await waitUntil(() => (fake.streamBytes(waiting).byteLength > 0 ? true : undefined), "the new reply's first megabyte");
    await sleep(300);
    expect(fake.streamBytes(waiting).byteLength).toBeLessThan(reply);
    for (const stream of whole) fake.send({ type: "window", stream, bytes: reply });
    await waitUntil(() => fake.streamMessages(waiting).find((m) => m.type === "end"), "the new reply's end");
    expect(fake.streamBytes(waiting).byteLength).toBe(reply);
    fake.send({ type: "window", stream: waiting, bytes: reply });
  });

  it("drops a server that stays silent for three heartbeats and reconnects", async () => {
    const connections = fake.connectionCount;
    fake.goSilent();
    await waitUntil(() => (fake.connectionCount > connections ? true : undefined), "reconnect after silence");
    await agent.waitForLog("server silent for 3 heartbeats, reconnecting");
    await waitUntil(() => fake.messages(fake.connectionCount).find((m) => m.type === "hello"), "hello after silence");
    fake.send({ type: "welcome", protocol: PROTOCOL_VERSION, machine_id: 7, heartbeat_ms: HEARTBEAT_MS });
  });

  it("stops (data kept, port refused), starts again, destroys (data gone), acking each", async () => {
    const dir = join(stateDir, "containers", ID);
    const run = async (commandId: string, op: "start" | "stop" | "destroy") => {
      const from = fake.received.length;
      fake.send({ type: "command", command_id: commandId, op, instance_id: ID, spec: null });
      const ack = await fake.waitFor("ack", (m) => m.command_id === commandId, from);
      const state = fake.messages().filter((m) => m.type === "container").at(-1);
      return { ack, state };
    };
    expect(await run("c-stop", "stop")).toEqual({
      ack: { type: "ack", command_id: "c-stop", ok: true, error: "" },
      state: { type: "container", instance_id: ID, state: "stopped", message: "" },
    });
    expect(existsSync(join(dir, "data"))).toBe(true);
    const stream = nextStream++;
    sendHttpRequest(fake, stream, ID, "/health");
    expect(await streamOutcome(fake, stream)).toEqual({ abort: "upstream_unavailable" });
    expect((await run("c-start", "start")).state).toMatchObject({ state: "running" });
    expect(await run("c-destroy", "destroy")).toEqual({
      ack: { type: "ack", command_id: "c-destroy", ok: true, error: "" },
      state: { type: "container", instance_id: ID, state: "destroyed", message: "" },
    });
    expect(existsSync(dir)).toBe(false);
  });

  it("reports a failing command as an error state and a failed ack", async () => {
    const from = fake.received.length;
    fake.send({ type: "command", command_id: "c-bad", op: "start", instance_id: ID, spec: null });
    const ack = await fake.waitFor("ack", (m) => m.command_id === "c-bad", from);
    expect(ack).toEqual({ type: "ack", command_id: "c-bad", ok: false, error: `start failed: no container for ${ID}` });
    expect(fake.messages().filter((m) => m.type === "container").at(-1)).toEqual({
      type: "container",
      instance_id: ID,
      state: "error",
      message: `start failed: no container for ${ID}`,
    });
  });

  it("never sent a frame the protocol rejects, and exits 0 on SIGTERM", async () => {
    expect(fake.protocolErrors).toEqual([]);
    expect(await agent.stop()).toBe(0);
    expect(agent.stderr()).toBe("");
  });
});
