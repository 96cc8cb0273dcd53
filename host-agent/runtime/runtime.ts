// The container runtime interface: the agent drives containers only through it, so nothing outside
// a runtime knows whether Docker (production) or local child processes (dev) run them.
import type { Readable, Writable } from "node:stream";
import type { ContainerSpec, HttpPort } from "../../protocol/messages.ts";
import type { VolumeMount } from "../../protocol/volumes.ts";

export interface ListedContainer {
  instanceId: string;
  state: "running" | "stopped";
}

export interface Endpoint {
  host: string;
  port: number;
}

/** A container that stopped without being asked to (crash, OOM, its process exiting). */
export interface ContainerExit {
  instanceId: string;
  state: "stopped" | "error";
  message: string;
}

/** What creating a container found worth telling the user, e.g. that disk_gb is not enforced ("" when nothing). */
export interface CreateOutcome {
  notice: string;
}

/** One line a container wrote, without its line break. */
export interface LogLine {
  /** When it was written, ISO 8601. */
  t: string;
  stream: "stdout" | "stderr";
  line: string;
}

export interface LogRequest {
  /** The last `tail` lines, both streams counted together. */
  tail: number;
  /** Then every new line, until the container stops. */
  follow: boolean;
}

/** What a running container uses, read from its engine (metrics/ turns the counters into rates). */
export interface ContainerUsage {
  instanceId: string;
  /** CPU time it has used since it started, in nanoseconds; null when the engine does not say. */
  cpuNs: number | null;
  memoryBytes: number | null;
  /** The GPUs it was started with. */
  gpuIndices: number[];
  /** Requests the dev container has served since it started (what synthetic GPUs follow); null for any other container. */
  requestsServed: number | null;
}

/** A process to run in a running container (an SSH session's shell or command). */
export interface ExecRequest {
  /** Run by `/bin/sh -c`; null: a login shell. */
  command: string | null;
  /** Added to the container's environment (the SSH client's TERM, LANG, LC_*). */
  env: Record<string, string>;
  /** A terminal of this size, when the client asked for one. */
  pty: { cols: number; rows: number } | null;
}

/** A process running in a container; with a PTY its output is all on `stdout`. */
export interface ExecProcess {
  stdin: Writable;
  stdout: Readable;
  stderr: Readable | null;
  /** Follows the client's window; nothing without a PTY. */
  resize(cols: number, rows: number): void;
  /** Its exit status once it ended and its output was read; null when the engine cannot tell. */
  exit: Promise<number | null>;
  kill(): void;
}

/** A volume of a container: its mount as the spec gave it, and the host folder holding its working copy. */
export interface ContainerVolume {
  mount: VolumeMount;
  /** Under the instance's own state: destroy removes it. */
  dir: string;
}

/** Every operation is idempotent: repeating it after it succeeded (or after a crash mid-way) is harmless. */
export interface ContainerRuntime {
  readonly name: "docker" | "local";
  /** Containers this agent owns, found again after an agent restart. */
  list(): Promise<ListedContainer[]>;
  /** Pulls the image if needed and creates the container, not started. A no-op when it exists (the same notice again). */
  create(spec: ContainerSpec, onPullProgress: (percent: number) => void): Promise<CreateOutcome>;
  start(instanceId: string): Promise<void>;
  /** Stops the container, keeping its data. */
  stop(instanceId: string): Promise<void>;
  /** Removes the container and its data; a no-op when it is gone already. */
  destroy(instanceId: string): Promise<void>;
  /** Where to connect to a container port; null when the container is unknown or not running. */
  resolvePort(instanceId: string, port: number): Promise<Endpoint | null>;
  /**
   * The container's log as LogLine objects (an object-mode stream), oldest first; it ends after the
   * tail, or with `follow` once the container stops (at once if it is not running). Destroying it
   * stops a follow. Null when the runtime has no such container.
   */
  logs(instanceId: string, request: LogRequest): Promise<Readable | null>;
  /** The container's HTTP ports and readiness paths as its spec gave them; [] for an unknown container or an older spec. */
  httpPorts(instanceId: string): Promise<HttpPort[]>;
  /**
   * The container's volumes as its spec gave them, each working copy where create put it (an empty
   * folder until restored; the docker runtime binds it at the mount's path, the local runtime's
   * shells see it there); [] for an unknown container.
   */
  volumes(instanceId: string): Promise<ContainerVolume[]>;
  /** Who the created container runs as, to own its volumes' files; null: the agent's own user. */
  volumeOwner(instanceId: string): Promise<{ uid: number; gid: number } | null>;
  /** Starts a process in the running container (Docker exec; locally a process in its data folder); null when it is not running. */
  exec(instanceId: string, request: ExecRequest): Promise<ExecProcess | null>;
  /**
   * A tar of `path` in the container, running or stopped, with the Docker archive API's semantics (the
   * path's own name at the archive's root); null when the path does not exist.
   */
  readArchive(instanceId: string, path: string): Promise<Readable | null>;
  /** Extracts `tar` into the directory `path` of the container, running or stopped; false when there is no such directory. */
  writeArchive(instanceId: string, path: string, tar: Readable): Promise<boolean>;
  /** The usage of every running container. */
  usage(): Promise<ContainerUsage[]>;
  onExit(listener: (exit: ContainerExit) => void): void;
  /** Releases what the runtime holds in this process (the local runtime's child processes). */
  close(): Promise<void>;
}

/** Milestones of an image pull that are worth a report. */
export const PULL_MILESTONES = [0, 25, 50, 75, 100] as const;
