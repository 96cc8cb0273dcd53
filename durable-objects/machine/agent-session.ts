// The agent's session with this machine: the token check and accept, every frame it sends (hello,
// heartbeat, container states, port readiness, cache, the volume versions it holds, usage samples,
// health, proxied-stream frames, which SSH key opened a connection, its volumes' requests
// (volume-requests.ts); each within agent-message-limits.ts), and the machine going online with a
// hello and offline when the socket closes or falls silent.
import { bearerToken } from "../../core/credentials.ts";
import { clock } from "../../core/clock.ts";
import { errorResponse } from "../../core/errors.ts";
import { constantTimeEqual, sha256Hex } from "../../core/hash.ts";
import { log } from "../../core/log.ts";
import type { Env } from "../../core/env.ts";
import { closeQuietly, decodeAgentMessage, PROTOCOL_VERSION, type AgentMessage } from "../../protocol/index.ts";
import type { SingleAlarm } from "../outbox/single-alarm.ts";
import { AgentEventRate, capAgentMessage, EVENT_WINDOW_MS, MAX_EVENTS, TOO_MANY_EVENTS_CLOSE_CODE } from "./agent-message-limits.ts";
import type { AgentSocket } from "./agent-socket.ts";
import type { ContainerLedger } from "./container-ledger.ts";
import type { MachineHealth } from "./host-health.ts";
import { Liveness } from "./liveness.ts";
import type { MachineRecord } from "./machine-record.ts";
import type { InstanceActivity } from "./instance-activity.ts";
import type { MetricsStore } from "./metrics-store.ts";
import type { ProxyBridge } from "./proxy-bridge.ts";
import type { SshKeyUse } from "./ssh-key-use.ts";
import type { VolumeRequests } from "./volume-requests.ts";

type Hello = Extract<AgentMessage, { type: "hello" }>;

/** The instance a command id names: `<instance id>/<generation>/<op>/<nonce>` (container-ledger.ts). */
const instanceOfCommand = (commandId: string) => commandId.split("/")[0];

export interface SessionParts {
  ctx: DurableObjectState;
  env: Env;
  record: MachineRecord;
  agent: AgentSocket;
  ledger: ContainerLedger;
  bridge: ProxyBridge;
  alarms: SingleAlarm;
  metrics: MetricsStore;
  health: MachineHealth;
  activity: InstanceActivity;
  sshKeyUse: SshKeyUse;
  volumes: VolumeRequests;
}

export class AgentSession {
  /** The heartbeat timeout, an alarm capability. */
  readonly liveness: Liveness;
  private readonly parts: SessionParts;
  private readonly eventRate = new AgentEventRate();

  constructor(parts: SessionParts) {
    this.parts = parts;
    this.liveness = new Liveness(parts.ctx, parts.env, parts.record, parts.agent, () => this.goOffline(parts.agent.current()));
  }

  /** /agent/v1/connect: a newer connection replaces any older one. */
  async accept(request: Request): Promise<Response> {
    const machine = this.parts.record.read();
    const token = bearerToken(request.headers.get("authorization")) ?? "";
    if (!machine || !constantTimeEqual(machine.token_hash, await sha256Hex(token))) {
      return errorResponse("unauthorized", "agent token missing or wrong");
    }
    // A plain GET only checks the token (the agent's `doctor`), without taking the live connection over.
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response(null, { status: 204 });
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    const { agent, bridge } = this.parts;
    agent.closeAll(4001, "replaced by a newer connection");
    bridge.abortAll();
    agent.accept(server);
    return new Response(null, { status: 101, webSocket: client });
  }

  async onFrame(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (!this.parts.agent.isCurrent(ws)) return closeQuietly(ws, 4001, "replaced by a newer connection");
    if (typeof message !== "string") {
      const problem = this.parts.bridge.onBinary(new Uint8Array(message));
      if (problem) log("warn", "agent data frame rejected", { machine_id: this.machineId(), problem });
      return;
    }
    const decoded = decodeAgentMessage(message);
    if (!decoded.ok) return log("warn", "agent frame rejected", { machine_id: this.machineId(), reason: decoded.reason });
    if (!this.eventRate.admit(this.parts.agent.connectionOf(ws), decoded.message, clock.now())) {
      log("warn", "agent sent too many event messages: connection closed", { machine_id: this.machineId(), limit: MAX_EVENTS, window_ms: EVENT_WINDOW_MS });
      closeQuietly(ws, TOO_MANY_EVENTS_CLOSE_CODE, "too many event messages");
      return this.goOffline(ws);
    }
    await this.onMessage(ws, capAgentMessage(decoded.message));
  }

  /** The socket closed or failed: only the current one takes the machine offline. */
  onClose(ws: WebSocket): void {
    if (this.parts.agent.isCurrent(ws)) this.goOffline(ws);
  }

  private async onMessage(ws: WebSocket, message: AgentMessage): Promise<void> {
    const { record, ledger, bridge, alarms } = this.parts;
    switch (message.type) {
      case "hello":
        return this.onHello(ws, message);
      case "heartbeat":
        // Only a heartbeat encoded otherwise than the runtime answers by itself gets here.
        this.liveness.heard();
        return alarms.reschedule();
      case "container":
        return ledger.onContainerState(message.instance_id, message.state, message.message);
      case "pull_progress":
        return ledger.onPullProgress(message.instance_id, message.percent);
      case "readiness":
        ledger.reportReadiness(message.instance_id, message.ready_ports, clock.now());
        return alarms.afterChange();
      case "metrics":
        return this.parts.metrics.record(message.instances);
      case "ack":
        if (!message.ok) log("warn", "agent command failed", { machine_id: this.machineId(), instance_id: instanceOfCommand(message.command_id), command_id: message.command_id, error: message.error });
        return;
      case "cache":
        record.replaceCache(message.models);
        record.bumpState();
        return alarms.afterChange();
      case "volume_cache":
        record.replaceHeldVolumes(message.volumes);
        record.bumpState();
        return alarms.afterChange();
      case "ssh_key_used":
        return this.parts.sshKeyUse.note(message.stream, message.key_id);
      case "volume_sign":
      case "volume_commit":
      case "volume_save_failed":
        return this.parts.volumes.onMessage(ws, message);
      case "health":
        if (!this.parts.health.replace(message.degraded)) return;
        log(message.degraded ? "warn" : "info", message.degraded ? "host degraded: no new instances" : "host healthy again", { machine_id: this.machineId(), degraded: message.degraded });
        record.bumpState();
        return alarms.afterChange();
      default:
        if (!bridge.onMessage(message) && message.type !== "window" && message.type !== "end") {
          log("info", "frame for a stream no longer open", { machine_id: this.machineId(), type: message.type, stream_id: message.stream });
        }
    }
  }

  /** Online, the host's inventory as it says, containers reconciled against what it runs. */
  private onHello(ws: WebSocket, hello: Hello): void {
    if (hello.protocol !== PROTOCOL_VERSION) {
      log("warn", "agent speaks another protocol version: refused", { machine_id: this.machineId(), agent_protocol: hello.protocol, protocol: PROTOCOL_VERSION });
      return closeQuietly(ws, 4002, `protocol ${PROTOCOL_VERSION} required`);
    }
    const { ctx, record, ledger, agent, alarms, health } = this.parts;
    const nowMs = clock.now();
    const wasOnline = record.isOnline();
    const reported = new Map(hello.containers.map((c) => [c.instance_id, c.state]));
    ctx.storage.transactionSync(() => {
      record.markOnline(Date.now());
      record.replaceGpus(hello.gpus);
      record.replaceCache(hello.cached_models);
      record.replaceVersions(hello);
      if (hello.host) record.replaceResources(hello.host);
      record.replaceDisk(hello.disk);
      health.replace(hello.degraded ?? "");
      ledger.takeReportedStates(reported, nowMs);
      const newHostKey = record.replaceSshHostKey(hello.ssh_host_key);
      if (!wasOnline || newHostKey) ledger.reportHost(true, nowMs, record.sshHostKey());
      // Time away is not idle time: the idle clock of every instance here starts again.
      if (!wasOnline) this.parts.activity.hostReturned();
      // After the host's own report: an account that took the host for gone learns what is ready again.
      for (const { instance_id, ready_ports } of hello.readiness ?? []) ledger.reportReadiness(instance_id, ready_ports, nowMs);
      record.bumpState();
    });
    agent.send({ type: "welcome", protocol: PROTOCOL_VERSION, machine_id: record.read()!.id, heartbeat_ms: this.liveness.heartbeatMs, settles_streams: true, whole_responses: true, response_frames: true });
    ledger.reconcile(reported.keys());
    log("info", "agent online", {
      machine_id: this.machineId(), agent_version: hello.agent_version, gpus: hello.gpus.length, containers: hello.containers.length, degraded: hello.degraded || undefined,
    });
    alarms.afterChange();
  }

  private machineId(): number | undefined {
    return this.parts.record.read()?.id;
  }

  /** `socket` is the agent's last connection, whose answered heartbeats say when it was last seen. */
  private goOffline(socket: WebSocket | null): void {
    const { ctx, record, agent, ledger, bridge, alarms } = this.parts;
    const machine = record.read();
    bridge.abortAll();
    if (!machine || machine.online !== 1) return;
    const nowMs = clock.now();
    const lastSeenMs = this.liveness.lastSeenMs(socket);
    ctx.storage.transactionSync(() => {
      record.markOffline(lastSeenMs);
      agent.forget();
      ledger.reportHost(false, nowMs);
      record.bumpState();
    });
    agent.closeAll(4003, "machine marked offline");
    log("info", "agent offline", { machine_id: machine.id });
    alarms.afterChange();
  }
}
