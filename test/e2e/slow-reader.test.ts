// A client that stops reading is bounded, through the whole stack on the local runtime.
// A proxied WebSocket's client: the MachineDO gives the agent credit back only for messages that
// have left the client's socket, so the upstream's messages wait at the host; the other way, a client
// whose messages the upstream does not read is closed with 1008 once 16 MiB of them wait.
// SSH, by its own flow control too: the real OpenSSH client runs `head -c` with its stdout going
// into a pipe nobody reads, and the agent sends at most one channel window (what the MachineDO
// counted arriving, the dev Worker's /bench/agent-ws-bytes), then the rest arrives whole once the
// pipe is read. A client that announces far more window than OpenSSH's and stops reading still gets
// one capped window (the ssh2 client, by hand). And a connection opens at most MAX_CHANNELS channels
// at once.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import type { Socket } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ssh2, { type ClientChannel } from "ssh2";
import { beforeAll, describe, expect, it } from "vitest";
import WebSocket, { createWebSocketStream } from "ws";
import { CHANNEL_WINDOW_BYTES, MAX_CHANNELS } from "../../host-agent/ssh/channel-limits.ts";
import { INITIAL_WINDOW_BYTES } from "../../protocol/index.ts";
import { waitUntil } from "../support/agent/wait-until.ts";
import { cliEnv, runGpu } from "./support/gpu-cli.ts";
import { useE2eStack, type Instance } from "./support/e2e-stack.ts";
import { missingOpenSsh, openSshRequired } from "./support/openssh.ts";
import { useTempDir } from "../support/agent/temp-dir.ts";

const stack = useE2eStack({ BENCH_ROUTES: "1" });
let env: NodeJS.ProcessEnv;
let home: string;
let keyFile: string;
let instance: Instance;

/** 32 MB: sixteen times OpenSSH's own window, far more than any window or buffer on the way. */
const OUTPUT_BYTES = 32_000_000;
/**
 * What the client side takes in while nobody reads, besides the window: the pipe into this process
 * and its stream's buffer, OpenSSH's own, the handshake and SSH's per-packet bytes (measured at
 * 100–180 KB). OpenSSH's own window is the cap: the agent sends about 2.2 MB.
 */
const CLIENT_SIDE_BYTES = 512 * 1024;
/** What ssh2's client channel buffers unread, acknowledging as it goes (its stream's high-water mark). */
const CLIENT_STREAM_BYTES = 2 * 1024 * 1024;
/** The most one TCP socket's send or receive buffer may grow to here (the kernel tunes each up to it as traffic asks). */
const kernelMaxBuffer = (name: "tcp_rmem" | "tcp_wmem") => Number(readFileSync(`/proc/sys/net/ipv4/${name}`, "utf8").trim().split(/\s+/)[2]);
/**
 * What the way from the MachineDO to a WebSocket client may hold besides its socket's queue: two TCP
 * connections (this process to the dev front, the front to the Worker), each with a send and a
 * receive buffer the kernel may grow to its maximum. Measured: 8 to 10 MiB alone, and 24.5 MiB once
 * in a full run (past the 24 MiB this bound used to be); the kernel's maxima here allow 72 MiB.
 */
const PATH_BUFFER_BYTES = 2 * (kernelMaxBuffer("tcp_rmem") + kernelMaxBuffer("tcp_wmem"));
/** What the agent may have sent to a WebSocket client that reads nothing: a window, its socket's queue included, and the path's buffers. */
const WS_STALL_BOUND = INITIAL_WINDOW_BYTES + PATH_BUFFER_BYTES;

const homeDir = useTempDir("gpu-ssh-slow-");

beforeAll(async () => {
  home = homeDir.path;
  env = cliEnv(home, { GPU_API_URL: stack.baseUrl, GPU_API_KEY: stack.key });
  keyFile = join(home, "id_ed25519");
  instance = await stack.launchRunning({ gpu_model: "rtx4090", gpu_count: 1, template: "vllm", model: "qwen2.5-0.5b-instruct" });
  if (missingOpenSsh) return;
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "slow@test", "-f", keyFile]);
  expect((await runGpu(["ssh-keys", "add", `${keyFile}.pub`], env)).code).toBe(0);
  expect((await runGpu(["ssh-config", "--write"], env)).code).toBe(0);
}, 120_000);

/** Binary WebSocket bytes the agents have sent their MachineDOs so far (only this file's streams send any, one test at a time). */
async function agentBytes(): Promise<number> {
  let total = 0;
  for (const { id } of Object.values(stack.setup.machines)) {
    const response = await fetch(`${stack.baseUrl}/bench/agent-ws-bytes/${id}`);
    total += ((await response.json()) as { bytes: number }).bytes;
  }
  return total;
}

/**
 * The agents' count once it has moved past `from` (ssh, `gpu ssh-proxy` and the handshake may take a
 * while to start on a busy machine) and then not moved for a second and a half (30 s at most).
 */
async function settledAgentBytes(from: number): Promise<number> {
  const deadline = Date.now() + 30_000;
  let last = await agentBytes();
  while (last === from) {
    if (Date.now() > deadline) throw new Error("the agents sent nothing for 30 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await agentBytes();
  }
  let stillSince = Date.now();
  while (Date.now() - stillSince < 1500) {
    if (Date.now() > deadline) throw new Error(`the agents' count kept moving for 30 s: ${last} bytes`);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = await agentBytes();
    if (now !== last) stillSince = Date.now();
    last = now;
  }
  return last;
}

/** The ssh2 client, authenticated with this file's key, over the instance's SSH WebSocket. */
async function sshOverWebSocket(): Promise<ssh2.Client> {
  const socket = new WebSocket(`${stack.baseUrl.replace(/^http/, "ws")}/v1/instances/${instance.id}/ssh`, {
    headers: { authorization: `Bearer ${stack.key}` }, perMessageDeflate: false,
  });
  await once(socket, "open");
  const connection = new ssh2.Client();
  const ready = once(connection, "ready");
  connection.connect({ sock: createWebSocketStream(socket) as never, username: "root", privateKey: readFileSync(keyFile), hostVerifier: () => true });
  await ready;
  return connection;
}

describe("a proxied WebSocket whose client or upstream stops reading", () => {
  it("gets the upstream's messages up to the bound while it reads nothing, and every one once it reads", async () => {
    // Twice the bound: an agent that did not stop would send it all.
    const bytes = 2 * WS_STALL_BOUND;
    const url = stack.proxyUrl(instance, 8000, `/ws?flood=${bytes}`).replace(/^http/, "ws");
    const before = await agentBytes();
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${stack.key}` }, perMessageDeflate: false });
    // The client's own TCP socket, paused from the start: nothing of the upgrade's stream is read.
    let tcp: Socket | undefined;
    socket.on("upgrade", (response) => {
      tcp = response.socket;
      tcp.pause();
    });
    let received = 0;
    socket.on("message", (data: Buffer) => (received += data.byteLength));
    try {
      // The agent sends a window the MachineDO has not returned, and a window waits in the client's
      // socket; the rest of what the agent sent is in the kernel's and the dev front's buffers on the
      // way to this process, which reads none of it.
      const stalled = (await settledAgentBytes(before)) - before;
      console.log(`WebSocket slow reader: the agent sent ${stalled} bytes of ${bytes} while nothing was read`);
      expect(stalled).toBeGreaterThan(0);
      expect(stalled).toBeLessThanOrEqual(WS_STALL_BOUND);
      tcp!.resume();
      await waitUntil(() => (received === bytes ? true : undefined), "every message once read", 60_000);
    } finally {
      socket.terminate();
    }
  }, 120_000);

  it("a client whose messages its upstream does not read is closed with 1008 once 16 MiB of them wait in the MachineDO", async () => {
    const url = stack.proxyUrl(instance, 8000, "/ws?deaf=1").replace(/^http/, "ws");
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${stack.key}` }, perMessageDeflate: false });
    await once(socket, "open");
    const closed = once(socket, "close") as Promise<[number, Buffer]>;
    // 96 MiB: the agent's credit and the kernel's buffers toward the paused upstream take a few MiB.
    const message = Buffer.alloc(512 * 1024, 9);
    for (let i = 0; i < 192 && socket.readyState === WebSocket.OPEN; i++) socket.send(message);
    const [code, reason] = await closed;
    expect({ code, reason: reason.toString() }).toEqual({ code: 1008, reason: "sending faster than the upstream reads" });
  }, 60_000);
});

if (missingOpenSsh && openSshRequired) {
  describe("SSH with a slow reader", () => {
    it("needs the OpenSSH tools", () => {
      throw new Error(`REQUIRE_OPENSSH=1 but ${missingOpenSsh}`);
    });
  });
}

describe.skipIf(missingOpenSsh !== null)(`SSH with a slow reader${missingOpenSsh ? ` (skipped: ${missingOpenSsh})` : ""}`, () => {
  it("ssh whose output nobody reads: the agent sends at most one channel window, and all of it arrives once read", async () => {
    const before = await agentBytes();
    const client = spawn("ssh", ["-F", join(home, ".ssh", "config"), "-i", keyFile, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
      `gpu-${instance.id}`, `head -c ${OUTPUT_BYTES} /dev/zero`], { env, stdio: ["ignore", "pipe", "pipe"] });
    const closed = once(client, "close") as Promise<[number | null]>;
    try {
      // stdout is not read: its pipe fills, then OpenSSH's buffer, then the window runs out.
      const stalled = (await settledAgentBytes(before)) - before;
      expect(stalled).toBeGreaterThan(0);
      expect(stalled).toBeLessThanOrEqual(CHANNEL_WINDOW_BYTES + CLIENT_SIDE_BYTES);

      let received = 0;
      client.stdout.on("data", (chunk: Buffer) => (received += chunk.byteLength));
      const [code] = await closed;
      expect(code).toBe(0);
      expect(received).toBe(OUTPUT_BYTES);
    } finally {
      client.kill();
    }
  }, 120_000);

  it("a client that announces a huge window and stops reading still gets at most one capped window", async () => {
    const connection = await sshOverWebSocket();
    const before = await agentBytes();
    try {
      const channel = await new Promise<ClientChannel>((resolve, reject) =>
        connection.exec(`head -c ${OUTPUT_BYTES} /dev/zero`, (error, opened) => (error ? reject(error) : resolve(opened))));
      // As a hostile client would: 64 MiB more window at once, and the channel never read. ssh2 itself
      // takes in up to its stream's buffer (CLIENT_STREAM_BYTES), acknowledging as it goes, before it
      // stops: with the window then open and the acknowledgement on its way, two windows and the buffer.
      const protocol = (connection as unknown as { _protocol: { channelWindowAdjust(id: number, bytes: number): void } })._protocol;
      protocol.channelWindowAdjust((channel as unknown as { outgoing: { id: number } }).outgoing.id, 64 * 1024 * 1024);
      const stalled = (await settledAgentBytes(before)) - before;
      expect(stalled).toBeGreaterThan(0);
      expect(stalled).toBeLessThanOrEqual(2 * CHANNEL_WINDOW_BYTES + CLIENT_STREAM_BYTES + CLIENT_SIDE_BYTES);
    } finally {
      const closed = once(connection, "close");
      connection.end();
      await closed;
    }
  }, 60_000);

  it(`one connection opens at most ${MAX_CHANNELS} channels at once; one closed by the client or ended by its command makes room`, async () => {
    const connection = await sshOverWebSocket();
    const exec = (command: string) => new Promise<ClientChannel>((resolve, reject) =>
      connection.exec(command, (error, channel) => (error ? reject(error) : resolve(channel))));
    try {
      const open = await Promise.all(Array.from({ length: MAX_CHANNELS }, () => exec("sleep 60")));
      await expect(exec("echo one-too-many")).rejects.toThrow(/open failure|administratively prohibited/i);
      // A client channel reports its close once its output has been read to the end.
      open[0]!.resume();
      const ended = once(open[0]!, "close");
      open[0]!.signal("KILL");
      open[0]!.close();
      await ended;
      const output = async (command: string) => {
        const channel = await exec(command);
        let text = "";
        channel.on("data", (chunk: Buffer) => (text += chunk.toString()));
        await once(channel, "close");
        return text;
      };
      expect(await output("echo room-again")).toBe("room-again\n");
      // That command ended by itself: its slot is free again too.
      expect(await output("echo and-again")).toBe("and-again\n");
    } finally {
      const closed = once(connection, "close");
      connection.end();
      await closed;
    }
  }, 60_000);
});
