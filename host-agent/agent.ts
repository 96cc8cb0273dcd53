// The host agent assembled: control channel, command runner, proxy streams and container state
// reports around one container runtime.
import { hostname } from "node:os";
import type { AgentMessage, ContainerReport, GpuInfo, ServerMessage } from "../protocol/messages.ts";
import type { HostResources } from "../protocol/resource-share.ts";
import { PROTOCOL_VERSION } from "../protocol/version.ts";
import { AgentConnection } from "./agent-connection.ts";
import { Backoff } from "./backoff.ts";
import { CommandRunner } from "./command-runner.ts";
import { ContainerStates } from "./container-states.ts";
import { HostHealth } from "./host-health.ts";
import { diskOf } from "./host-disk.ts";
import { UploadStaging } from "./files/upload-staging.ts";
import { errorMessage, type Logger } from "./log.ts";
import type { GpuSource } from "./metrics/gpu-source.ts";
import { MetricsSampler } from "./metrics/metrics-sampler.ts";
import { scanModelCache } from "./model-cache.ts";
import { ProxyStreams } from "./proxy/proxy-streams.ts";
import { wholeResponsesOf } from "./proxy/response-stream.ts";
import { ReadinessProbes } from "./readiness-probes.ts";
import type { SshHostKey } from "./ssh/host-key.ts";
import type { ContainerRuntime } from "./runtime/runtime.ts";
import { VolumeRequests } from "./volume-requests.ts";
import { InstanceVolumes, startPeriodicSaves } from "./instance-volumes.ts";
import type { VolumeLibrary } from "./volumes/volume-library.ts";

export const AGENT_VERSION = "0.1.0";

export interface AgentOptions {
  connectUrl: string;
  token: string;
  runtime: ContainerRuntime;
  gpus: GpuInfo[];
  /** Reported in the hello: placement keeps templates off hosts whose CUDA is too old. */
  versions: { driver: string; cuda: string };
  /** The host's memory and CPUs, reported in the hello: instances get their share by GPUs. */
  resources: HostResources;
  /** Whether the engine enforces disk_gb, reported in the hello; undefined when unknown. */
  diskGbEnforced?: boolean;
  cacheDir: string;
  log: Logger;
  /** Where GPU readings come from, and how often a sample goes out. */
  metrics: { gpus: GpuSource; intervalMs: number };
  /** Why the host takes no new instances (the tenant firewall's check sets it); always healthy when left out. */
  health?: HostHealth;
  /** The SSH server's host key (ssh/host-key.ts); without one the agent refuses SSH connections. */
  sshHostKey?: SshHostKey;
  /** Where parts of resumable uploads are staged (files/upload-staging.ts); without it the agent refuses them. */
  uploadsDir?: string;
  /** What all instances' uploads may stage together (DEFAULT_STAGING_GB unless said). */
  uploadStagingBytes?: number;
  /** A folder on the file system instances' disks live on, whose size and free bytes the hello reports; none: not reported. */
  diskDir?: string;
  /** Instances' volumes: the host's library (its chunk cache), and how often running instances' are saved; none: a create with volumes fails. */
  volumes?: { library: VolumeLibrary; saveIntervalMs: number };
}

export interface RunningAgent {
  /** Closes the connection and releases the runtime (the local runtime's containers stop). */
  close(): Promise<void>;
}

export function startAgent(options: AgentOptions): RunningAgent {
  const { connectUrl, token, runtime, gpus, versions, resources, diskGbEnforced, cacheDir, log, metrics, health = new HostHealth(), sshHostKey, uploadsDir, diskDir } = options;
  const uploads = uploadsDir === undefined ? null : new UploadStaging(uploadsDir, { hostBytes: options.uploadStagingBytes });
  const stopSweeping = uploads?.startSweeping((error) => log.warn("upload sweep failed", { error: errorMessage(error) }));
  const states = new ContainerStates();
  /**
   * Set once the agent shuts down: what its containers do from then on (the shutdown may end them)
   * is said by the next hello, as after a crash, not reported as it happens.
   */
  let closing = false;
  const probes = new ReadinessProbes(runtime, (readiness) => {
    connection.send({ type: "readiness", ...readiness });
    log.info("port readiness", { ...readiness });
  });
  const report = (containerReport: ContainerReport) => {
    states.record(containerReport);
    if (closing) return;
    connection.send({ type: "container", ...containerReport });
    log.info("container state", { ...containerReport });
    // Readiness belongs to one run of the container: a new run is probed from scratch.
    if (containerReport.state === "running") probes.start(containerReport.instance_id);
    else probes.stop(containerReport.instance_id);
  };
  const buildHello = async (): Promise<AgentMessage> => {
    const [listed, cachedModels, disk] = await Promise.all([runtime.list(), scanModelCache(cacheDir), diskDir === undefined ? null : diskOf(diskDir)]);
    // Containers that outlived an agent restart are probed again.
    for (const { instanceId, state } of listed) if (state === "running" && !probes.probing(instanceId)) probes.start(instanceId);
    return {
      type: "hello",
      protocol: PROTOCOL_VERSION,
      agent_version: AGENT_VERSION,
      runtime: runtime.name,
      hostname: hostname(),
      driver_version: versions.driver,
      cuda_version: versions.cuda,
      gpus,
      containers: states.forHello(listed),
      cached_models: cachedModels,
      readiness: probes.snapshot(),
      degraded: health.degraded(),
      host: resources,
      ...(diskGbEnforced === undefined ? {} : { disk_gb_enforced: diskGbEnforced }),
      ...(disk ? { disk } : {}),
      ...(sshHostKey ? { ssh_host_key: sshHostKey.publicLine } : {}),
    };
  };
  const onMessage = (message: Exclude<ServerMessage, { type: "welcome" | "heartbeat_ack" }>) => {
    switch (message.type) {
      case "command":
        // Sessions in an instance going away end now, saying why, not when the process under them is killed.
        if (message.op === "stop" || message.op === "destroy") void streams.endSessions(message.instance_id, `the instance is being ${message.op === "stop" ? "stopped" : "destroyed"}: this session has ended`);
        // Its files are gone with it, so are its uploads' parts.
        if (message.op === "destroy") uploads?.removeInstance(message.instance_id).catch((error: unknown) => log.warn("uploads not removed", { instance_id: message.instance_id, error: errorMessage(error) }));
        return void commands.run(message);
      case "http_request":
      case "ws_open":
        return streams.open(message);
      case "logs_open":
        return streams.openLogs(message);
      case "ssh_open":
        return streams.openSsh(message);
      case "terminal_open":
        return streams.openTerminal(message);
      case "files_open":
        return streams.openFiles(message);
      case "volume_signed":
      case "volume_committed":
        return volumeRequests.receive(message);
      default:
        return streams.receive(message);
    }
  };
  const connection = new AgentConnection({
    url: connectUrl,
    token,
    log,
    backoff: new Backoff({ baseMs: 250, capMs: 5_000 }),
    buildHello,
    onMessage,
    onData: (frame) => {
      const refused = streams.receiveData(frame);
      if (refused) log.warn("data frame refused", { reason: refused });
    },
    onDisconnect: () => {
      streams.closeAll();
      volumeRequests.disconnected();
    },
    onStreamFault: (stream) => streams.endFaulted(stream),
    onWelcome: (welcome) => {
      streams.serverSettles(welcome.settles_streams === true);
      streams.serverTakesWholeResponses(wholeResponsesOf(welcome));
      // Each connection starts with what the host's cache holds: placement's preference for this host.
      void instanceVolumes?.reportHeld();
    },
  });
  const volumeRequests = new VolumeRequests((message) => connection.send(message));
  const instanceVolumes = options.volumes
    ? new InstanceVolumes({ runtime, library: options.volumes.library, requests: volumeRequests, send: (message) => connection.send(message), log })
    : null;
  const commands = new CommandRunner(runtime, report, (message) => connection.send(message), log, () => health.degraded(), instanceVolumes);
  const stopSaving = options.volumes ? startPeriodicSaves(runtime, options.volumes.saveIntervalMs, (instanceId) => commands.saveVolumes(instanceId), log) : undefined;
  // A change between hellos; a reconnect's hello carries it anyway.
  health.onChange((degraded) => connection.send({ type: "health", degraded }));
  const streams = new ProxyStreams(runtime, connection, log, undefined, sshHostKey ? { hostKey: sshHostKey, runtime } : null, runtime, uploads);
  runtime.onExit(({ instanceId, state, message }) => {
    report({ instance_id: instanceId, state, message });
    // A container that ended on its own (not by a command, which has ended them already) takes its sessions with it, saying so.
    void streams.endSessions(instanceId, `the instance's container ended (${message}): this session has ended`);
  });
  const sampler = new MetricsSampler({ runtime, gpus: metrics.gpus, send: (message) => connection.send(message), intervalMs: metrics.intervalMs, log });
  connection.start();
  sampler.start();
  log.info("agent started", { runtime: runtime.name, gpus: gpus.length, url: connectUrl });
  return {
    async close() {
      closing = true;
      stopSweeping?.();
      stopSaving?.();
      probes.close();
      sampler.close();
      await streams.endSessions(null, "the host's agent is restarting: this session has ended; connect again in a minute");
      await connection.close();
      streams.closeAll();
      await runtime.close();
    },
  };
}
