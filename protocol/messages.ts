// Control messages of the agent protocol: JSON text frames, checked with zod at both ends.
// Bulk data never travels as JSON: see frames.ts for the binary data frames.
import { z } from "zod";
import { volumeCache, volumeCommit, volumeCommitted, volumeMount, volumeSaveFailed, volumeSign, volumeSigned } from "./volumes.ts";

/** The most columns or rows a terminal may have. */
export const TERMINAL_MAX_SIZE = 1000;

const streamId = z.number().int().min(1).max(0xffffffff);
/** The largest body an `http_response` may carry whole (see its `body`), before base64. */
export const WHOLE_RESPONSE_MAX_BYTES = 16 * 1024;
const headerList = z.array(z.tuple([z.string(), z.string()]));
const instanceId = z.string().regex(/^i-[a-z2-7]{16}$/);

export const containerStates = ["pulling", "creating", "running", "stopped", "error", "destroyed"] as const;
export type ContainerState = (typeof containerStates)[number];

export const gpuInfo = z.object({
  index: z.number().int().min(0),
  /** Our priced GPU model id for this GPU's name, or "" for a GPU we do not know: never offered to customers. */
  model: z.string(),
  name: z.string(),
  uuid: z.string(),
  vram_mb: z.number().int().min(0),
});
export type GpuInfo = z.infer<typeof gpuInfo>;

const port = z.number().int().min(1).max(65535);

/** An HTTP port of a container and the path that answers once its server is ready (the template's). */
export const httpPort = z.object({ port, path: z.string().startsWith("/") });
export type HttpPort = z.infer<typeof httpPort>;

export const containerSpec = z.object({
  instance_id: instanceId,
  image: z.string(),
  template: z.string(),
  /** Hugging Face id of the model to serve, "" when the template takes none. */
  model: z.string(),
  env: z.record(z.string(), z.string()),
  /** Command (or entrypoint arguments) for the container; [] keeps the image's own. */
  command: z.array(z.string()),
  ports: z.array(port),
  gpu_indices: z.array(z.number().int().min(0)),
  disk_gb: z.number().int().min(1),
  /**
   * The HTTP ports among `ports` with their readiness paths, which the agent probes while the
   * container runs. Absent in specs written before readiness existed: nothing is probed.
   */
  http_ports: z.array(httpPort).optional(),
  /** The account's volumes mounted in the container (protocol/volumes.ts); absent: none. */
  volumes: z.array(volumeMount).optional(),
});
export type ContainerSpec = z.infer<typeof containerSpec>;

export const containerReport = z.object({
  instance_id: instanceId,
  state: z.enum(containerStates),
  message: z.string(),
});
export type ContainerReport = z.infer<typeof containerReport>;

/** Which HTTP ports of a running container answer their readiness path now (the whole set, not a change). */
export const portReadiness = z.object({ instance_id: instanceId, ready_ports: z.array(port) });
export type PortReadiness = z.infer<typeof portReadiness>;

/** A measurement nvidia-smi or the engine could not give (`[N/A]`, `[Not Supported]`, a first CPU reading) is null. */
const reading = z.number().finite().min(0).nullable();

/** One GPU's state at a sample, as nvidia-smi reports it. */
export const gpuSample = z.object({
  index: z.number().int().min(0),
  util_percent: reading,
  memory_used_mib: reading,
  memory_total_mib: reading,
  power_w: reading,
  power_limit_w: reading,
  temperature_c: reading,
  sm_clock_mhz: reading,
});
export type GpuSample = z.infer<typeof gpuSample>;

/** Most GPUs one instance can hold, and most instances one metrics message names: a bound on what one message stores. */
export const MAX_SAMPLED_GPUS = 16;
export const MAX_SAMPLED_INSTANCES = 64;

/** One running container at a sample: its engine's CPU and memory figures and the GPUs it holds. */
export const instanceUsage = z.object({
  instance_id: instanceId,
  /** CPU time over the last interval in percent of one core (200: two cores busy); null until two readings exist. */
  cpu_percent: reading,
  /** The container's CPU time since it started, in seconds (the engine's cumulative counter); absent from older agents. */
  cpu_seconds: reading.optional(),
  memory_used_mib: reading,
  gpus: z.array(gpuSample).max(MAX_SAMPLED_GPUS),
});
export type InstanceUsage = z.infer<typeof instanceUsage>;

/** A resumable upload's id, chosen by the client: 16 to 64 of A-Z, a-z, 0-9, `_` and `-` (safe as a file name). */
export const UPLOAD_ID_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

/** Most lines a logs request may ask for. */
export const MAX_LOG_TAIL = 10_000;

/** A file system's size and free space, in bytes. */
export const hostDisk = z.object({ total_bytes: z.number().int().min(0), free_bytes: z.number().int().min(0) });
export type HostDisk = z.infer<typeof hostDisk>;

/** Frames the agent sends to its MachineDO. */
export const agentMessage = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("hello"),
    protocol: z.number().int(),
    agent_version: z.string(),
    runtime: z.string(),
    hostname: z.string(),
    /** The NVIDIA driver version, e.g. "550.54.15" ("" when unknown). */
    driver_version: z.string(),
    /** The newest CUDA version the driver supports, e.g. "12.4" ("" when unknown: no template is placed there). */
    cuda_version: z.string(),
    gpus: z.array(gpuInfo),
    containers: z.array(containerReport),
    cached_models: z.array(z.string()),
    /** Readiness of every probed container, so a reconnected MachineDO learns it again (absent from older agents). */
    readiness: z.array(portReadiness).optional(),
    /**
     * Why this host takes no new instances now ("" when it does; absent from older agents): e.g. its
     * tenant firewall is missing. The agent refuses creates and starts while it is not "".
     */
    degraded: z.string().optional(),
    /** The host's memory and CPUs (absent from older agents): with its GPU count, what each instance gets (resource-share.ts). */
    host: z.object({ memory_bytes: z.number().int().min(0), cpus: z.number().int().min(1) }).optional(),
    /** Whether the engine enforces disk_gb (a size limit on a container's writable layer); absent when unknown (the local runtime, older agents). */
    disk_gb_enforced: z.boolean().optional(),
    /**
     * The file system instances' disks live on (the engine's data root): its size and free bytes.
     * Placement promises instances at most its size in disk_gb together. Absent from older agents,
     * where the agent cannot see it, and from the local runtime, whose instances reserve no disk: no
     * limit is assumed then.
     */
    disk: hostDisk.optional(),
    /** The public key line of the agent's SSH server (`ssh-ed25519 AAAA…`), generated on its first start; absent from an agent without one. */
    ssh_host_key: z.string().max(16_384).optional(),
  }),
  /** The hello's `degraded` changed (the agent's tenant firewall went missing, or came back). */
  z.object({ type: z.literal("health"), degraded: z.string() }),
  z.object({ type: z.literal("heartbeat") }),
  z.object({ type: z.literal("container"), ...containerReport.shape }),
  /** Progress of an image pull, 0..100, sent at milestones only. */
  z.object({ type: z.literal("pull_progress"), instance_id: instanceId, percent: z.number().int().min(0).max(100) }),
  z.object({ type: z.literal("ack"), command_id: z.string(), ok: z.boolean(), error: z.string() }),
  z.object({ type: z.literal("cache"), models: z.array(z.string()) }),
  /**
   * Every running container's usage, once per sampling interval (10 s), only while one runs. An older
   * MachineDO drops it as an unknown type, which costs nothing but the charts.
   */
  z.object({ type: z.literal("metrics"), instances: z.array(instanceUsage).max(MAX_SAMPLED_INSTANCES) }),
  /** A container's ready ports changed. */
  z.object({ type: z.literal("readiness"), ...portReadiness.shape }),
  z.object({
    type: z.literal("http_response"), stream: streamId, status: z.number().int().min(100).max(599), headers: headerList,
    /**
     * The whole response body, base64, when it is at most WHOLE_RESPONSE_MAX_BYTES: the stream ends
     * with this message (no data or `end` frames follow), so a small response is one message. Sent
     * only to a MachineDO whose welcome says `whole_responses`, and not `response_frames`.
     */
    body: z.string().max(Math.ceil(WHOLE_RESPONSE_MAX_BYTES / 3) * 4).optional(),
  }),
  z.object({ type: z.literal("ws_accepted"), stream: streamId, protocol: z.string() }),
  /**
   * The SSH connection on `stream` authenticated with the key `key_id` of its `ssh_open` (its account's
   * id for it), so the account can show the key's last use. Sent once per connection; an older
   * MachineDO drops it, which costs only that.
   */
  z.object({ type: z.literal("ssh_key_used"), stream: streamId, key_id: z.string().max(64) }),
  volumeSign,
  volumeCommit,
  volumeSaveFailed,
  volumeCache,
  ...streamMessages(),
]);
export type AgentMessage = z.infer<typeof agentMessage>;

/** Frames the MachineDO sends to its agent. */
export const serverMessage = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("welcome"),
    protocol: z.number().int(),
    machine_id: z.number().int(),
    heartbeat_ms: z.number().int().min(100),
    /**
     * The MachineDO returns all of a stream's remaining credit when it is done with the stream, so the
     * agent may count an ended stream's bytes until then (host-agent/proxy/send-budget.ts). Absent
     * from a MachineDO before it: taken as false.
     */
    settles_streams: z.boolean().optional(),
    /** The MachineDO takes an `http_response` with its whole `body`. Absent from a MachineDO before it: taken as false. */
    whole_responses: z.boolean().optional(),
    /**
     * The MachineDO takes a small response whole as one binary response frame (mux/response-frame.ts)
     * instead, which it hands on unread. Absent from a MachineDO before it: taken as false.
     */
    response_frames: z.boolean().optional(),
  }),
  /** The answer to a heartbeat sent as exactly `{"type":"heartbeat"}`: the platform gives it without waking the MachineDO. */
  z.object({ type: z.literal("heartbeat_ack") }),
  volumeSigned,
  volumeCommitted,
  z.object({
    type: z.literal("command"),
    command_id: z.string(),
    /** `save`: save the instance's read-write volumes now (a stop and a destroy save them first too). */
    op: z.enum(["create", "start", "stop", "destroy", "save"]),
    instance_id: instanceId,
    spec: containerSpec.nullable(),
  }),
  z.object({
    type: z.literal("http_request"),
    stream: streamId,
    instance_id: instanceId,
    port,
    method: z.string(),
    /** Path and query exactly as the client sent them (percent-encoding untouched). */
    path: z.string(),
    headers: headerList,
    has_body: z.boolean(),
  }),
  z.object({
    type: z.literal("ws_open"),
    stream: streamId,
    instance_id: instanceId,
    port,
    path: z.string(),
    headers: headerList,
    protocols: z.array(z.string()),
  }),
  /**
   * An SSH connection to the instance, carried like a proxied WebSocket (`ws_accepted`, binary
   * messages of the raw SSH byte stream, `ws_close`), ended by the agent's own SSH server. `keys`: the
   * account's public keys as the control plane had them when the connection opened, the only ones
   * that authenticate it; each key's `id` (absent from an older MachineDO) is what `ssh_key_used` names.
   */
  z.object({
    type: z.literal("ssh_open"),
    stream: streamId,
    instance_id: instanceId,
    keys: z.array(z.object({ id: z.string().max(64).optional(), type: z.string(), blob: z.string() })).max(100),
  }),
  /**
   * The dashboard's terminal into the instance, carried like a proxied WebSocket (`ws_accepted`,
   * `ws_close`): a login shell in the container on a terminal of `cols` × `rows`. The client's text
   * messages are keystrokes, except `{"type":"resize","cols","rows"}`; the shell's output comes back
   * as binary messages, and the close's reason says its exit status.
   */
  z.object({
    type: z.literal("terminal_open"),
    stream: streamId,
    instance_id: instanceId,
    cols: z.number().int().min(1).max(TERMINAL_MAX_SIZE),
    rows: z.number().int().min(1).max(TERMINAL_MAX_SIZE),
  }),
  /**
   * An instance's files, answered like a proxied HTTP request, running or stopped: `get` answers 200
   * with a tar of `path` (the Docker archive API's semantics) or 404; `put` takes a tar as the
   * request body (data frames within the agent's credit, then `end`) and extracts it into the
   * directory `path`, answering 204, or 404 when there is no such directory.
   *
   * A `put` with `upload` is one part of a resumable upload of the single file `path` instead: the
   * body is that file's bytes from `offset`, staged by the agent (the instance's uploads at most
   * `max_bytes` together, its disk). It answers 202 with `Upload-Offset` (the staged size), 409 when
   * `offset` is not the staged size (with `Upload-Offset`), 413 past `max_bytes`; the `final` part
   * writes the file into the container as one regular file and answers 204. An older agent drops `upload` and takes
   * the body for a tar, which it refuses.
   */
  z.object({
    type: z.literal("files_open"),
    stream: streamId,
    instance_id: instanceId,
    op: z.enum(["get", "put"]),
    path: z.string().startsWith("/"),
    upload: z
      .object({ id: z.string().regex(UPLOAD_ID_PATTERN), offset: z.number().int().min(0), final: z.boolean(), max_bytes: z.number().int().min(0) })
      .optional(),
  }),
  /**
   * A container's logs, answered like a proxied HTTP request: an `http_response` head (404 when the
   * host has no such container), body frames within the credit, and `end`. `events` formats each
   * line as a server-sent event with its time and stream, `text` as the bare line; with `follow` the
   * body goes on with new lines until the container stops.
   */
  z.object({
    type: z.literal("logs_open"),
    stream: streamId,
    instance_id: instanceId,
    tail: z.number().int().min(1).max(MAX_LOG_TAIL),
    follow: z.boolean(),
    format: z.enum(["text", "events"]),
  }),
  ...streamMessages(),
]);
export type ServerMessage = z.infer<typeof serverMessage>;

/** Stream frames both sides send, keyed by the stream id the MachineDO assigned. */
function streamMessages() {
  return [
    /** The sender consumed `bytes` more of the stream: the receiver may send that much more. */
    z.object({ type: z.literal("window"), stream: streamId, bytes: z.number().int().min(1) }),
    /** The sender's body (or WebSocket) is complete. */
    z.object({ type: z.literal("end"), stream: streamId }),
    /** The stream failed: `reason` is `upstream_unavailable` before a response head, else free text. */
    z.object({ type: z.literal("abort"), stream: streamId, reason: z.string() }),
    z.object({ type: z.literal("ws_close"), stream: streamId, code: z.number().int(), reason: z.string() }),
  ] as const;
}
