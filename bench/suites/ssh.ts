// Shell and files through the bridge, as a customer runs them: `ssh <id> head -c N /dev/zero` with the
// system OpenSSH client (ProxyCommand `gpu ssh-proxy`) read to its end, and `gpu cp` of a file each way
// (1 GiB in --full), in MB/s, against the same bytes through the path proxy in this run; and one byte
// typed into a shell's terminal (`ssh -tt`) until its echo is seen, against a proxied WebSocket
// round trip in this run.
import { execFileSync, spawn } from "node:child_process";
import { createReadStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Readable } from "node:stream";
import WebSocket from "ws";
import { SSH_CIPHERS } from "../../standards/ssh-ciphers.ts";
import type { Section } from "../results-model.ts";
import { routeUrl, wsUrl } from "../routes.ts";
import { cpuMs, listProcesses, parentOf } from "../stack/procfs.ts";
import { MB, median, megabytesPerSecond, summarize } from "../stats.ts";
import { cpuSnapshot, cpuSpent, type CpuSnapshot } from "./cpu-meter.ts";
import type { SuiteContext } from "./suite-context.ts";

const GPU_CLI = resolve(import.meta.dirname, "../../cli/gpu.ts");
const ROUND_TRIPS = 200;
const WARM_UP = 20;

export async function sshSuite(ctx: SuiteContext): Promise<Section> {
  const ssh = await sshClient(ctx);
  try {
    return await measureSsh(ctx, ssh);
  } finally {
    ssh.remove();
  }
}

async function measureSsh(ctx: SuiteContext, ssh: SshClient): Promise<Section> {
  const bytes = ctx.config.transferBytes;
  const copyBytes = ctx.config.copyBytes;
  const notes = [
    `ssh: the system OpenSSH client with ProxyCommand \`gpu ssh-proxy\` (a WebSocket to /v1/instances/{id}/ssh), its own SSH encryption end to end to the agent's SSH server; ${bytes / MB} MB of \`head -c\` from the instance's shell, timed from its first byte (the time to that byte, \`gpu ssh-proxy\` starting, the WebSocket and the SSH handshake, is its own figure), median of ${ctx.config.transferRuns} run(s); (d) the same bytes as GET /fast/bytes through the path proxy, timed from the request`,
    `gpu cp: ${copyBytes / MB} MB to the instance's /data and back (tar streams through PUT and GET /v1/instances/{id}/files), up as ${Math.ceil(copyBytes / PART_BYTES)} file(s) of at most ${PART_BYTES / MB} MB, one gpu cp each (each goes up in one request, as the proxied upload it is compared with, which carries at most 512 MB), down as their directory in one; each timed as the commands run, Node's start included; (d) POST /fast/sink of the same files and GET /fast/bytes of as many bytes through the path proxy, each right after its copy`,
    `CPU per MB of the downloads above (the same runs, medians), from /proc: the service's = wrangler's front workerd, the Worker's workerd and the agent (the instance's \`head\` and the dev container left out); the client's = this process reading, and for ssh also \`ssh\` and \`gpu ssh-proxy\`, their starts and the handshake included (read at the last byte); the machine's cores are shared by both sides`,
    `echo: one byte typed into \`ssh -tt <id> cat\` until the terminal's echo comes back, ${ROUND_TRIPS} times after ${WARM_UP}; (d) a 32-byte message to the container's /ws echo through the path proxy`,
  ];
  ctx.log(`ssh: ${bytes / MB} MB through ssh and the proxy`);
  const sshRuns: (Download & { connectMs: number })[] = [];
  const proxiedRuns: Download[] = [];
  for (let run = 0; run < ctx.config.transferRuns; run++) {
    sshRuns.push(await ssh.download(bytes));
    proxiedRuns.push(await proxiedDownload(ctx, bytes));
  }
  ctx.log(`ssh: gpu cp of ${copyBytes / MB} MB each way`);
  const copies = await copyRuns(ctx, copyBytes);
  ctx.log("ssh: echo round trips");
  const echo = summarize(await ssh.echoRoundTrips());
  const ws = summarize(await wsRoundTrips(ctx));
  return {
    id: "ssh", title: "SSH through the bridge", baselineKeys: ["proxied"], notes,
    figures: [
      { id: "ssh.download", label: `ssh head -c ${bytes / MB} MB`, unit: "MB/s", better: "higher", ours: median(sshRuns.map((r) => r.mbPerS)), baselines: { proxied: median(proxiedRuns.map((r) => r.mbPerS)) } },
      { id: "ssh.download.service_cpu", label: "  the service's CPU per MB", unit: "ms CPU/MB", better: "lower", ours: median(sshRuns.map((r) => r.serviceMsPerMb)), baselines: { proxied: median(proxiedRuns.map((r) => r.serviceMsPerMb)) } },
      { id: "ssh.download.client_cpu", label: "  the client's CPU per MB", unit: "ms CPU/MB", better: "lower", ours: median(sshRuns.map((r) => r.clientMsPerMb)), baselines: { proxied: median(proxiedRuns.map((r) => r.clientMsPerMb)) } },
      { id: "ssh.connect", label: "ssh to the first byte of output", unit: "ms", better: "lower", ours: median(sshRuns.map((r) => r.connectMs)), baselines: {} },
      { id: "files.upload", label: `gpu cp ${copyBytes / MB} MB up`, unit: "MB/s", better: "higher", ours: copies.up, baselines: { proxied: copies.proxiedUp } },
      { id: "files.download", label: `gpu cp ${copyBytes / MB} MB down`, unit: "MB/s", better: "higher", ours: copies.down, baselines: { proxied: copies.proxiedDown } },
      { id: "ssh.echo.p50", label: "typed byte's echo p50", unit: "ms", better: "lower", ours: echo.p50, baselines: { proxied: ws.p50 } },
      { id: "ssh.echo.p99", label: "typed byte's echo p99", unit: "ms", better: "lower", ours: echo.p99, baselines: { proxied: ws.p99 } },
    ],
  };
}

type SshClient = Awaited<ReturnType<typeof sshClient>>;

/** A key on the bench account and an ssh configured to reach the bench instance through `gpu ssh-proxy`; `remove` takes its folder away. */
async function sshClient(ctx: SuiteContext) {
  const home = mkdtempSync(join(tmpdir(), "gpu-bench-ssh-"));
  const key = join(home, "id_ed25519");
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "bench", "-f", key]);
  const publicKey = readFileSync(`${key}.pub`, "utf8").trim();
  const added = await fetch(`${ctx.stack.baseUrl}/v1/ssh-keys`, {
    method: "POST", headers: { authorization: `Bearer ${ctx.stack.key}`, "content-type": "application/json" }, body: JSON.stringify({ public_key: publicKey }),
  });
  if (added.status !== 201) throw new Error(`adding the bench's SSH key: ${added.status} ${await added.text()}`);
  const config = join(home, "config");
  writeFileSync(config, [
    "Host bench",
    "  User root",
    `  ProxyCommand ${process.execPath} ${GPU_CLI} ssh-proxy ${ctx.stack.instanceId}`,
    `  IdentityFile ${key}`,
    "  IdentitiesOnly yes",
    "  BatchMode yes",
    "  StrictHostKeyChecking no",
    "  UserKnownHostsFile /dev/null",
    "  LogLevel ERROR",
    // As `gpu ssh-config` writes it: OpenSSH's own order would pick aes128-ctr with an HMAC.
    `  Ciphers ${SSH_CIPHERS.join(",")}`,
    "",
  ].join("\n"));
  const env = { ...process.env, GPU_API_URL: ctx.stack.baseUrl, GPU_API_KEY: ctx.stack.key };
  return {
    remove: () => rmSync(home, { recursive: true, force: true }),
    /**
     * `head -c bytes` from the instance read to the end: MB/s from its first byte on, ms until that byte
     * (the connection's setup), and CPU per MB on each side.
     */
    async download(bytes: number): Promise<Download & { connectMs: number }> {
      const started = performance.now();
      const cpu = new DownloadCpu(ctx);
      const child = spawn("ssh", ["-F", config, "bench", `head -c ${bytes} /dev/zero`], { env, stdio: ["ignore", "pipe", "pipe"] });
      let received = 0;
      let firstByte = 0;
      let proxyCommand: number | null = null;
      const atLastByte: { spent?: { serviceMs: number; clientMs: number } } = {};
      child.stdout.on("data", (chunk: Buffer) => {
        if (received === 0) {
          firstByte = performance.now();
          proxyCommand = listProcesses().find((p) => parentOf(p.pid) === child.pid)?.pid ?? null;
        }
        received += chunk.byteLength;
        // Both client processes are still there at the last byte; what they do after it is their exit.
        if (received === bytes) atLastByte.spent = cpu.spent(cpuMs(child.pid!) + (proxyCommand === null ? 0 : cpuMs(proxyCommand)));
      });
      const code = await new Promise<number | null>((done) => child.on("close", done));
      if (code !== 0 || received !== bytes || !atLastByte.spent) throw new Error(`ssh head -c ${bytes} gave ${received} bytes, exit ${code}`);
      const { serviceMs, clientMs } = atLastByte.spent;
      return { mbPerS: megabytesPerSecond(bytes, performance.now() - firstByte), connectMs: firstByte - started, serviceMsPerMb: (serviceMs * MB) / bytes, clientMsPerMb: (clientMs * MB) / bytes };
    },
    /** Milliseconds from a byte typed to its echo, on the instance's terminal. */
    async echoRoundTrips(): Promise<number[]> {
      const child = spawn("ssh", ["-F", config, "-tt", "bench", "cat"], { env, stdio: "pipe" });
      let seen = "";
      let waiting: (() => void) | null = null;
      child.stdout.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes("x")) {
          seen = "";
          waiting?.();
        }
      });
      const typed = () => new Promise<void>((done) => {
        waiting = done;
        child.stdin.write("x");
      });
      try {
        return await roundTrips(typed);
      } finally {
        child.kill();
      }
    },
  };
}

/**
 * The size of each file a copy goes up as: `gpu cp` sends a file of at most this in one request (a
 * bigger one in resumable parts), and the proxied upload it is compared with carries at most 512 MB.
 */
const PART_BYTES = 256 * MB;

/**
 * `gpu cp` of `bytes` up to the instance (in files of at most PART_BYTES, one copy each, into one
 * directory) and of that directory back, each followed by as many bytes through the path proxy; MB/s.
 */
async function copyRuns(ctx: SuiteContext, bytes: number): Promise<{ up: number; down: number; proxiedUp: number; proxiedDown: number }> {
  const folder = mkdtempSync(join(tmpdir(), "gpu-bench-cp-"));
  const parts = Array.from({ length: Math.ceil(bytes / PART_BYTES) }, (_, index) => {
    const directory = join(folder, `part-${index}`, "bench-copy");
    mkdirSync(directory, { recursive: true });
    const file = join(directory, `part-${index}.bin`);
    writeFileSync(file, "");
    truncateSync(file, Math.min(PART_BYTES, bytes - index * PART_BYTES));
    return { directory, file, bytes: statSync(file).size };
  });
  const env = { ...process.env, GPU_API_URL: ctx.stack.baseUrl, GPU_API_KEY: ctx.stack.key };
  const copy = async (args: string[]) => {
    const child = spawn(process.execPath, [GPU_CLI, "cp", ...args], { env, stdio: "ignore" });
    const code = await new Promise<number | null>((done) => child.on("close", done));
    if (code !== 0) throw new Error(`gpu cp ${args.join(" ")} exited ${code}`);
  };
  const rate = async (work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    return megabytesPerSecond(bytes, performance.now() - started);
  };
  try {
    const up = await rate(async () => {
      for (const part of parts) await copy([part.directory, `${ctx.stack.instanceId}:/data`]);
    });
    const proxiedUp = await rate(async () => {
      for (const part of parts) await proxiedUpload(ctx, part.file, part.bytes);
    });
    const back = join(folder, "back");
    const down = await rate(() => copy([`${ctx.stack.instanceId}:/data/bench-copy`, back]));
    const broughtBack = readdirSync(back).reduce((sum, name) => sum + statSync(join(back, name)).size, 0);
    if (broughtBack !== bytes) throw new Error(`gpu cp brought back ${broughtBack} of ${bytes} bytes`);
    rmSync(back, { recursive: true });
    const proxiedDown = (await proxiedDownload(ctx, bytes)).mbPerS;
    return { up, down, proxiedUp, proxiedDown };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function proxiedUpload(ctx: SuiteContext, file: string, bytes: number): Promise<void> {
  const route = ctx.routes.ours;
  const sink = await fetch(routeUrl(route, "/fast/sink"), {
    method: "POST", headers: { ...route.headers, "content-length": String(bytes) }, body: Readable.toWeb(createReadStream(file)) as ReadableStream, duplex: "half",
  } as RequestInit);
  await sink.text();
  if (!sink.ok) throw new Error(`proxied upload of ${bytes} bytes: HTTP ${sink.status}`);
}

/** A download's rate, and the CPU each side spent on it per MB. */
interface Download {
  mbPerS: number;
  serviceMsPerMb: number;
  clientMsPerMb: number;
}

/** CPU time from its start: the service's processes on the path, and the client's (this process, and any named). */
class DownloadCpu {
  readonly #ctx: SuiteContext;
  readonly #start: CpuSnapshot;

  constructor(ctx: SuiteContext) {
    this.#ctx = ctx;
    this.#start = cpuSnapshot(ctx);
  }

  /** `clientProcessesMs`: the CPU time of the client's other processes, which started with the download. */
  spent(clientProcessesMs = 0): { serviceMs: number; clientMs: number } {
    const hops = cpuSpent(this.#start, cpuSnapshot(this.#ctx));
    return { serviceMs: hops["workerd front"] + hops["workerd worker"] + hops.agent, clientMs: hops.client + clientProcessesMs };
  }
}

async function proxiedDownload(ctx: SuiteContext, bytes: number): Promise<Download> {
  const route = ctx.routes.ours;
  const started = performance.now();
  const cpu = new DownloadCpu(ctx);
  const response = await fetch(routeUrl(route, `/fast/bytes?n=${bytes}`), { headers: route.headers });
  let received = 0;
  for await (const chunk of response.body!) received += (chunk as Uint8Array).byteLength;
  if (received !== bytes) throw new Error(`proxied download gave ${received} of ${bytes} bytes`);
  const mbPerS = megabytesPerSecond(bytes, performance.now() - started);
  const { serviceMs, clientMs } = cpu.spent();
  return { mbPerS, serviceMsPerMb: (serviceMs * MB) / bytes, clientMsPerMb: (clientMs * MB) / bytes };
}

async function wsRoundTrips(ctx: SuiteContext): Promise<number[]> {
  const route = ctx.routes.ours;
  const socket = new WebSocket(wsUrl(route, "/ws"), { headers: route.headers, perMessageDeflate: false });
  await new Promise<void>((done, fail) => socket.once("open", () => done()).once("error", fail));
  const echoed: (() => void)[] = [];
  socket.on("message", () => echoed.shift()?.());
  const once = () => new Promise<void>((done) => {
    echoed.push(done);
    socket.send("x".repeat(32));
  });
  try {
    return await roundTrips(once);
  } finally {
    socket.close();
  }
}

/** Milliseconds of each of ROUND_TRIPS round trips, one at a time, after WARM_UP untimed ones. */
async function roundTrips(once: () => Promise<void>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < WARM_UP + ROUND_TRIPS; i++) {
    const started = performance.now();
    await once();
    if (i >= WARM_UP) samples.push(performance.now() - started);
  }
  return samples;
}
