// A tenant's SSH client that sends what no real client would, against the agent's SSH server and the
// docker runtime on a real engine (podman, as CI provides; runs when DOCKER_HOST is set). Every
// number in an SSH request is a 32-bit field the client picks: ports past 65535, hosts that are not
// the instance's, channels past the cap, windows and packets of gigabytes, terminals of 2^32 columns,
// a second command on one session, requests the server does not serve. Each is refused or ends its
// own channel or connection; after each the server still serves a new session in the same instance,
// and another instance's session on the same host streams on, missing nothing. A fault that escaped
// (the first case once threw in a promise callback) fails the run as an unhandled error, as it ended
// the agent's process.
import { once } from "node:events";
import { createServer, type AddressInfo, type Server } from "node:net";
import Docker from "dockerode";
import ssh2, { type Client, type ClientChannel } from "ssh2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINE_TESTS_SCOPE } from "../../test/support/agent/engine-scope.ts";
import { randomInstanceId, testSpec } from "../../test/support/agent/specs.ts";
import { useTempDir } from "../../test/support/agent/temp-dir.ts";
import { waitUntil } from "../../test/support/agent/wait-until.ts";
import { createLogger } from "../log.ts";
import { DockerRuntime } from "../runtime/docker-runtime.ts";
import { MAX_CHANNELS } from "./channel-limits.ts";
import { MAX_ENV_VARIABLES } from "./client-values.ts";
import { loadOrCreateHostKey } from "./host-key.ts";
import { serveSshConnection } from "./ssh-server.ts";

/** Its command is busybox's httpd on 8080, a port the instance does not publish: forwards reach it at the container's address. */
const TEST_IMAGE = "localhost/gpu-rental-busybox:latest";
const U32_MAX = 2 ** 32 - 1;

/** What ssh2's client keeps of an open channel and of its connection's writer, which a hostile client drives directly. */
type RawChannel = ClientChannel & { outgoing: { id: number } };
type RawProtocol = {
  channelWindowAdjust(channel: number, bytes: number): void;
  channelData(channel: number, data: Buffer): void;
  exec(channel: number, command: string, wantReply: boolean): void;
};
const rawProtocol = (client: Client) => (client as unknown as { _protocol: RawProtocol })._protocol;

describe.skipIf(!process.env.DOCKER_HOST)("a hostile SSH client against the agent's SSH server on the docker runtime", () => {
  const dir = useTempDir("hostile-ssh-");
  const attacker = randomInstanceId();
  const neighbour = randomInstanceId();
  const logLines: string[] = [];
  const clientKey = ssh2.utils.generateKeyPairSync("ecdsa", { bits: 256 });
  const servers: Server[] = [];
  const ports = new Map<string, number>();
  let runtime: DockerRuntime;
  /** The neighbour's session: a counter it prints every 100 ms, and every line it has printed. */
  let neighbourSession: { channel: ClientChannel; lines: () => number[]; closed: () => boolean };

  beforeAll(async () => {
    runtime = new DockerRuntime({ modelCacheDir: dir.path, stopTimeoutSeconds: 1, docker: new Docker(), scope: ENGINE_TESTS_SCOPE });
    const hostKey = await loadOrCreateHostKey(dir.path);
    const [type = "", blob = ""] = clientKey.public.split(" ");
    const log = createLogger((line) => logLines.push(line));
    for (const id of [attacker, neighbour]) {
      await runtime.create(testSpec(id, { image: TEST_IMAGE, ports: [], gpu_indices: [], command: [] }), () => {});
      await runtime.start(id);
      const server = createServer((socket) => serveSshConnection(socket, { hostKey, keys: [{ type, blob }], instanceId: id, runtime, log }));
      servers.push(server);
      server.listen(0, "127.0.0.1");
      await once(server, "listening");
      ports.set(id, (server.address() as AddressInfo).port);
    }
    const client = await connect(neighbour);
    const channel = await exec(client, "i=0; while true; do echo $i; i=$((i+1)); sleep 0.1; done");
    let text = "";
    let closed = false;
    channel.on("data", (chunk: Buffer) => (text += chunk.toString()));
    channel.on("close", () => (closed = true));
    neighbourSession = { channel, lines: () => text.split("\n").filter(Boolean).map(Number), closed: () => closed };
  }, 120_000);
  afterAll(async () => {
    neighbourSession?.channel.close();
    for (const server of servers) server.close();
    for (const id of [attacker, neighbour]) await runtime?.destroy(id);
    await runtime?.close();
  });

  function connect(instanceId: string): Promise<Client> {
    const client = new ssh2.Client();
    return new Promise((resolve, reject) => {
      client.once("ready", () => resolve(client)).once("error", reject);
      client.connect({ host: "127.0.0.1", port: ports.get(instanceId), username: "root", privateKey: clientKey.private, readyTimeout: 20_000 });
    });
  }

  function exec(client: Client, command: string, options: ssh2.ExecOptions = {}): Promise<ClientChannel> {
    return new Promise((resolve, reject) => client.exec(command, options, (error, channel) => (error ? reject(error) : resolve(channel))));
  }

  async function output(channel: ClientChannel): Promise<{ code: number | null; stdout: string }> {
    let stdout = "";
    channel.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const [code] = (await once(channel, "close")) as [number | null];
    return { code, stdout };
  }

  function forward(client: Client, host: string, port: number): Promise<ClientChannel> {
    return new Promise((resolve, reject) => client.forwardOut("127.0.0.1", 40000, host, port, (error, channel) => (error ? reject(error) : resolve(channel))));
  }

  /** The server still serves a new connection's session in the attacker's instance. */
  async function expectServing(): Promise<void> {
    const client = await connect(attacker);
    try {
      expect(await output(await exec(client, "echo still-serving"))).toEqual({ code: 0, stdout: "still-serving\n" });
    } finally {
      client.end();
    }
  }

  /** Runs `attack` on a connection of its own (ended after), then checks the server and the neighbour. */
  async function survives(attack: (client: Client) => Promise<void>): Promise<void> {
    const client = await connect(attacker);
    client.on("error", () => undefined);
    try {
      await attack(client);
    } finally {
      client.end();
    }
    await expectServing();
  }

  it("refuses forwards to ports 0, 65536, 70000 and 2^32-1 (the first once ended the process)", async () => {
    await survives(async (client) => {
      for (const port of [0, 65_536, 70_000, U32_MAX]) await expect(forward(client, "localhost", port), `port ${port}`).rejects.toThrow();
    });
  });

  it("refuses forwards to any host but the instance's own loopback, however it is written", async () => {
    await survives(async (client) => {
      for (const host of ["", "0.0.0.0", "169.254.169.254", "10.0.0.1", "::ffff:127.0.0.1", "localhost\0.evil", "h".repeat(4096)]) {
        await expect(forward(client, host, 8080), `host ${JSON.stringify(host.slice(0, 20))}`).rejects.toThrow();
      }
    });
  });

  it("still forwards to the instance's own port", async () => {
    await survives(async (client) => {
      const channel = await forward(client, "localhost", 8080);
      channel.end("GET / HTTP/1.0\r\n\r\n");
      let response = "";
      channel.on("data", (chunk: Buffer) => (response += chunk.toString()));
      await once(channel, "close");
      expect(response).toContain("gpu-rental busybox ok");
    });
  });

  it(`refuses sessions and forwards past ${MAX_CHANNELS} open channels`, async () => {
    await survives(async (client) => {
      const open = await Promise.all(Array.from({ length: MAX_CHANNELS }, () => exec(client, "sleep 30")));
      await expect(exec(client, "echo one-too-many")).rejects.toThrow();
      await expect(forward(client, "localhost", 8080)).rejects.toThrow();
      for (const channel of open) channel.close();
    });
  });

  it("holds windows of 4 GiB added twice, and ends the connection that sends a packet of 1 MiB", async () => {
    await survives(async (client) => {
      const channel = (await exec(client, "head -c 8000000 /dev/zero")) as RawChannel;
      rawProtocol(client).channelWindowAdjust(channel.outgoing.id, U32_MAX);
      rawProtocol(client).channelWindowAdjust(channel.outgoing.id, U32_MAX);
      rawProtocol(client).channelData(channel.outgoing.id, Buffer.alloc(1024 * 1024));
      await once(client, "close");
    });
  });

  it("runs one command per session: a second exec on a session that has one is ignored (it once threw in the server)", async () => {
    await survives(async (client) => {
      const channel = (await exec(client, "sleep 1; echo first")) as RawChannel;
      const done = output(channel);
      rawProtocol(client).exec(channel.outgoing.id, "echo second", true);
      expect(await done).toEqual({ code: 0, stdout: "first\n" });
    });
  });

  it("refuses terminals of 2^32-1 columns and rows, and ignores such a window change", async () => {
    await survives(async (client) => {
      await expect(exec(client, "stty size", { pty: { cols: U32_MAX, rows: U32_MAX } })).rejects.toThrow(/pseudo-terminal/);
      const channel = await exec(client, "sleep 1; stty size", { pty: { cols: 100, rows: 40 } });
      channel.setWindow(U32_MAX, U32_MAX, 0, 0);
      channel.setWindow(0, 0, 0, 0);
      const { stdout } = await output(channel);
      expect(stdout.trim()).toBe("40 100");
    });
  });

  it("sets only the variables it allows, short and at most so many; the rest are dropped", async () => {
    await survives(async (client) => {
      const env: Record<string, string> = { LD_PRELOAD: "/tmp/evil.so", NVIDIA_VISIBLE_DEVICES: "all", LANG: "C.UTF-8", LC_ALL: "x".repeat(10_000), LC_CTYPE: "a\nb" };
      // LC_ and letters only: LC_ZA, LC_ZB, … (a name with a digit is refused as such).
      for (let i = 0; i < MAX_ENV_VARIABLES * 2; i++) env[`LC_Z${[...i.toString(26)].map((digit) => String.fromCharCode(65 + parseInt(digit, 26))).join("")}`] = "y";
      const { stdout } = await output(await exec(client, "env", { env }));
      expect(stdout).toContain("LANG=C.UTF-8");
      expect(stdout).not.toMatch(/LD_PRELOAD|NVIDIA_VISIBLE_DEVICES=all|LC_ALL|LC_CTYPE/);
      // LANG took one of the session's variables.
      expect(stdout.match(/^LC_Z[A-Z]+=y$/gm)).toHaveLength(MAX_ENV_VARIABLES - 1);
    });
  });

  it("refuses every request it does not serve: remote forwards, Unix sockets, X11, other subsystems", async () => {
    await survives(async (client) => {
      await expect(new Promise((resolve, reject) => client.forwardIn("127.0.0.1", 0, (error) => (error ? reject(error) : resolve(null))))).rejects.toThrow();
      await expect(new Promise((resolve, reject) => client.openssh_forwardInStreamLocal("/tmp/agent.sock", (error) => (error ? reject(error) : resolve(null))))).rejects.toThrow();
      await expect(new Promise((resolve, reject) => client.openssh_forwardOutStreamLocal("/var/run/docker.sock", (error) => (error ? reject(error) : resolve(null))))).rejects.toThrow();
      await expect(exec(client, "true", { x11: true })).rejects.toThrow(/X11/);
      await expect(new Promise((resolve, reject) => client.subsys("no-such-subsystem", (error) => (error ? reject(error) : resolve(null))))).rejects.toThrow();
      const channel = await exec(client, "sleep 1; echo after-signal");
      channel.signal("KILL");
      expect((await output(channel)).stdout).toBe("after-signal\n");
    });
  });

  it("kept the neighbour's session streaming throughout, missing no line, and logged no uncaught fault", async () => {
    const before = neighbourSession.lines().length;
    await waitUntil(() => (neighbourSession.lines().length >= before + 5 ? true : undefined), "the neighbour's session to go on");
    const lines = neighbourSession.lines();
    expect(lines).toEqual(lines.map((_, i) => i));
    expect(neighbourSession.closed()).toBe(false);
    expect(logLines.filter((line) => /uncaught|unhandled/i.test(line))).toEqual([]);
  });
});
