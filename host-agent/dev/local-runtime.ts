// The local runtime: each "container" is a child process of the dev container server (or, when asked,
// the real Jupyter: jupyter-container.ts), with its spec, data folder, log, its volumes' working
// copies (volumes/<volume id>, seen by its shells at their paths) and the empty folder its shells'
// root is built on (data-root.ts) under <stateDir>/containers/<instance_id>/ (for machines without a
// container engine).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { containerSpec, type ContainerSpec, type HttpPort } from "../../protocol/messages.ts";
import { asUsageReport, type DevUsageReport } from "./container/usage-report.ts";
import { freeLatePort } from "./free-port.ts";
import { jupyterCommand, JUPYTER_PORT, JUPYTER_TEMPLATE } from "./jupyter-container.ts";
import { LogWriter, readTail } from "./local-log-file.ts";
import {
  PULL_MILESTONES, type ContainerExit, type ContainerRuntime, type ContainerUsage, type CreateOutcome, type Endpoint, type ExecProcess, type ExecRequest,
  type ContainerVolume, type ListedContainer, type LogRequest,
} from "../runtime/runtime.ts";
import { DATA_PATH, readLocalArchive, writeLocalArchive, type LocalRoot } from "./local-archive.ts";
import { localSession } from "./local-session.ts";

const DEV_SERVER_FILE = fileURLToPath(new URL("./container/server.ts", import.meta.url));
const REAL_PROGRAM_FILE = fileURLToPath(new URL("./container/real-program.ts", import.meta.url));
const STOP_GRACE_MS = 5_000;

export interface LocalRuntimeOptions {
  stateDir: string;
  /** The dev container's model-load delay (DEV_READY_DELAY_MS). */
  readyDelayMs: number;
  /** Duration of the simulated image pull (DEV_PULL_MS). */
  pullMs: number;
  /** A Node that runs .ts files; the agent's own by default. */
  nodePath?: string;
  /** Instances of the Jupyter template run the template's own command, the real JupyterLab (DEV_JUPYTER=1). */
  jupyter?: boolean;
}

interface RunningContainer {
  child: ChildProcess;
  /** SSH sessions' processes: they end with the container. */
  sessions: Set<ExecProcess>;
  hostPorts: Map<number, number>;
  log: LogWriter;
  stopping: boolean;
  exited: Promise<void>;
  gpuIndices: number[];
  /** The dev container's last report of what it uses (usage-report.ts); null before its first. */
  usage: DevUsageReport | null;
}

export class LocalRuntime implements ContainerRuntime {
  readonly name = "local";
  readonly #options: LocalRuntimeOptions;
  readonly #running = new Map<string, RunningContainer>();
  readonly #exitListeners: ((exit: ContainerExit) => void)[] = [];

  constructor(options: LocalRuntimeOptions) {
    this.#options = options;
  }

  async list(): Promise<ListedContainer[]> {
    const root = join(this.#options.stateDir, "containers");
    const entries = await readdir(root).catch(() => []);
    const listed: ListedContainer[] = [];
    for (const instanceId of entries.sort()) {
      if ((await this.#readSpec(instanceId)) === null) continue;
      listed.push({ instanceId, state: this.#running.has(instanceId) ? "running" : "stopped" });
    }
    return listed;
  }

  async create(spec: ContainerSpec, onPullProgress: (percent: number) => void): Promise<CreateOutcome> {
    if ((await this.#readSpec(spec.instance_id)) !== null) return { notice: "" };
    for (const { path } of spec.volumes ?? []) checkLocalMountPath(path);
    for (const percent of PULL_MILESTONES) {
      if (percent > 0) await sleep(this.#options.pullMs / (PULL_MILESTONES.length - 1));
      onPullProgress(percent);
    }
    const dir = this.#dir(spec.instance_id);
    await mkdir(join(dir, "data"), { recursive: true });
    for (const { volume_id } of spec.volumes ?? []) await mkdir(join(dir, "volumes", volume_id), { recursive: true });
    // Written last and atomically: a container.json means the container exists completely.
    await writeFile(join(dir, "container.json.tmp"), JSON.stringify(spec, null, 2));
    await rename(join(dir, "container.json.tmp"), join(dir, "container.json"));
    return { notice: "" };
  }

  async start(instanceId: string): Promise<void> {
    if (this.#running.has(instanceId)) return;
    const spec = await this.#readSpec(instanceId);
    if (spec === null) throw new Error(`no container for ${instanceId}`);
    const hostPorts = new Map<number, number>();
    for (const port of spec.ports) hostPorts.set(port, await freeLatePort(this.#hostPortsInUse(hostPorts)));
    const dir = this.#dir(instanceId);
    const jupyterPort = this.#options.jupyter && spec.template === JUPYTER_TEMPLATE ? hostPorts.get(JUPYTER_PORT) : undefined;
    const jupyter = jupyterPort === undefined ? null : await jupyterCommand(spec.command, jupyterPort, dir);
    const child = spawn(this.#options.nodePath ?? process.execPath, jupyter ? [REAL_PROGRAM_FILE, ...jupyter.program] : [DEV_SERVER_FILE], {
      cwd: join(dir, "data"),
      env: jupyter ? { ...spec.env, ...jupyter.env } : {
        ...spec.env,
        DEV_LISTEN: [...hostPorts].map(([port, hostPort]) => `${port}:${hostPort}`).join(","),
        DEV_MODEL: spec.model,
        DEV_READY_DELAY_MS: String(this.#options.readyDelayMs),
        DEV_DATA_DIR: join(dir, "data"),
      },
      // The IPC channel lets the child notice the agent's death, however it dies.
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    const log = new LogWriter(dir);
    log.capture(child.stdout!, "stdout");
    log.capture(child.stderr!, "stderr");
    const entry: RunningContainer = {
      child, sessions: new Set(), hostPorts, log, stopping: false, exited: once(child, "exit").then(() => undefined), gpuIndices: spec.gpu_indices, usage: null,
    };
    this.#running.set(instanceId, entry);
    child.on("message", (message) => {
      entry.usage = asUsageReport(message) ?? entry.usage;
    });
    child.on("exit", (code, signal) => this.#noticeExit(instanceId, entry, code, signal));
    try {
      await once(child, "spawn");
    } catch (error) {
      this.#running.delete(instanceId);
      throw new Error(`container process did not start: ${String(error)}`);
    }
  }

  async stop(instanceId: string): Promise<void> {
    const entry = this.#running.get(instanceId);
    if (!entry) {
      if ((await this.#readSpec(instanceId)) === null) throw new Error(`no container for ${instanceId}`);
      return;
    }
    await this.#terminate(entry);
  }

  async destroy(instanceId: string): Promise<void> {
    const entry = this.#running.get(instanceId);
    if (entry) await this.#terminate(entry);
    // A terminal's shell outlives its `script` by a moment (local-session.ts) and may write its history then.
    await rm(this.#dir(instanceId), { recursive: true, force: true, maxRetries: 3 });
  }

  async exec(instanceId: string, request: ExecRequest): Promise<ExecProcess | null> {
    const entry = this.#running.get(instanceId);
    if (!entry) return null;
    const dir = this.#dir(instanceId);
    await mkdir(join(dir, "root"), { recursive: true });
    const binds = (await this.volumes(instanceId)).map(({ mount, dir: volumeDir }) => ({ dir: volumeDir, path: mount.path, readOnly: mount.read_only }));
    const session = localSession(join(dir, "data"), join(dir, "root"), request, binds);
    entry.sessions.add(session);
    void session.exit.then(() => entry.sessions.delete(session));
    return session;
  }

  async readArchive(instanceId: string, path: string): Promise<Readable | null> {
    return (await this.#readSpec(instanceId)) === null ? null : readLocalArchive(await this.#roots(instanceId), path);
  }

  async writeArchive(instanceId: string, path: string, tar: Readable): Promise<boolean> {
    return (await this.#readSpec(instanceId)) !== null && writeLocalArchive(await this.#roots(instanceId), path, tar);
  }

  async resolvePort(instanceId: string, port: number): Promise<Endpoint | null> {
    const hostPort = this.#running.get(instanceId)?.hostPorts.get(port);
    return hostPort === undefined ? null : { host: "127.0.0.1", port: hostPort };
  }

  async logs(instanceId: string, { tail, follow }: LogRequest): Promise<Readable | null> {
    const running = this.#running.get(instanceId);
    if (running) return running.log.read(tail, follow);
    if ((await this.#readSpec(instanceId)) === null) return null;
    return Readable.from(readTail(this.#dir(instanceId), tail));
  }

  async httpPorts(instanceId: string): Promise<HttpPort[]> {
    return (await this.#readSpec(instanceId))?.http_ports ?? [];
  }

  async volumes(instanceId: string): Promise<ContainerVolume[]> {
    const spec = await this.#readSpec(instanceId);
    return (spec?.volumes ?? []).map((mount) => ({ mount, dir: join(this.#dir(instanceId), "volumes", mount.volume_id) }));
  }

  /** The agent's own user: the "container" is its child process. */
  async volumeOwner(): Promise<null> {
    return null;
  }

  async usage(): Promise<ContainerUsage[]> {
    return [...this.#running].map(([instanceId, { gpuIndices, usage }]) => ({
      instanceId, gpuIndices, cpuNs: usage?.cpu_ns ?? null, memoryBytes: usage?.memory_bytes ?? null, requestsServed: usage?.requests_served ?? null,
    }));
  }

  onExit(listener: (exit: ContainerExit) => void): void {
    this.#exitListeners.push(listener);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#running.values()].map((entry) => this.#terminate(entry)));
  }

  async #terminate(entry: RunningContainer): Promise<void> {
    entry.stopping = true;
    // A session's shell may still write into the instance's folders as it exits (its history): a
    // destroy removes them only once it has (a loaded run's rm met a folder filling up again).
    const sessionsEnded = Promise.all([...entry.sessions].map((session) => session.exit.catch(() => null)));
    for (const session of entry.sessions) session.kill();
    if (entry.child.exitCode === null && entry.child.signalCode === null) entry.child.kill("SIGTERM");
    const killTimer = setTimeout(() => entry.child.kill("SIGKILL"), STOP_GRACE_MS);
    await Promise.all([entry.exited, Promise.race([sessionsEnded, sleep(STOP_GRACE_MS)])]);
    clearTimeout(killTimer);
  }

  #noticeExit(instanceId: string, entry: RunningContainer, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#running.get(instanceId) === entry) this.#running.delete(instanceId);
    for (const session of entry.sessions) session.kill();
    if (entry.stopping) return;
    const exit: ContainerExit =
      code === 0
        ? { instanceId, state: "stopped", message: "container process exited" }
        : { instanceId, state: "error", message: `container process exited with ${code === null ? `signal ${signal}` : `code ${code}`}` };
    for (const listener of this.#exitListeners) listener(exit);
  }

  /** The host ports of running containers and of the one starting: a container binds its own only once ready. */
  #hostPortsInUse(starting: Map<number, number>): Set<number> {
    return new Set([...this.#running.values(), { hostPorts: starting }].flatMap(({ hostPorts }) => [...hostPorts.values()]));
  }

  /** What the instance's files are: its data folder at /data, each volume's working copy at its path. */
  async #roots(instanceId: string): Promise<LocalRoot[]> {
    const volumes = (await this.volumes(instanceId)).map(({ mount, dir }) => ({ path: mount.path, dir, readOnly: mount.read_only }));
    return [{ path: DATA_PATH, dir: join(this.#dir(instanceId), "data") }, ...volumes];
  }

  #dir(instanceId: string): string {
    return join(this.#options.stateDir, "containers", instanceId);
  }

  async #readSpec(instanceId: string): Promise<ContainerSpec | null> {
    const text = await readFile(join(this.#dir(instanceId), "container.json"), "utf8").catch(() => null);
    if (text === null) return null;
    try {
      const parsed = containerSpec.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }
}

/**
 * A local session's root is this machine's own, every top-level folder bound in: a volume can be seen
 * at a top-level folder the machine lacks (as /workspace) or under /data, never inside one of the
 * machine's own folders, which would mean making a folder in it.
 */
function checkLocalMountPath(path: string): void {
  const top = path.split("/")[1] ?? "";
  if (top === "data" || !existsSync(`/${top}`)) return;
  throw new Error(`the local runtime cannot mount a volume at ${path}: /${top} is this machine's own folder (use a path like /workspace or one under /data)`);
}
