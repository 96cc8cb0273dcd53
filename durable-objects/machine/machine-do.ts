// MachineDO, one per host machine: a thin dispatcher over its parts. Authority for: which GPU indices
// are reserved by which instance (a GPU is free exactly when no reservation names it), each
// container's desired and last reported state (container-ledger.ts), the agent connection and
// whether the machine is online (agent-session.ts, agent-socket.ts, liveness.ts), whether it takes
// new instances (host-health.ts: its agent says when it is degraded), and which
// credentials open the proxy of its containers (proxy-admission.ts, from the key sets AccountDOs push:
// account-key-sets.ts), the tickets and sessions of its instances' web apps (app-sessions.ts), and
// which credential opened each of its long-lived streams, which end as the AccountDO says it ended
// (stream-credentials.ts).
// It keeps FleetDO's index current (fleet-push.ts) and tells AccountDOs what happens through its
// outbox, all timed by one alarm. It also carries proxied, files and container log streams
// (stream-entries.ts, proxy-bridge.ts), keeps its instances' usage history as their hosts report it
// (metrics-store.ts) and when each was last used (instance-activity.ts), which the idle stop asks about
// (idle-watch.ts), and signs its agent's URLs for the volumes its containers mount (volume-requests.ts).
//
// Liveness costs nothing per heartbeat, so an idle machine's object stays hibernated between them.
// The agent sends `{"type":"heartbeat"}` every third of HEARTBEAT_TIMEOUT_MS; the runtime answers it
// with `{"type":"heartbeat_ack"}` itself (WebSocket auto-response) and records when, per socket,
// without running this object or writing storage. The machine row keeps only the hello's time. The
// alarm is set for the last sign of life (the later of the two) plus the timeout: when it rings, a
// newer answered heartbeat moves it on; if none came, the machine goes offline exactly as a timeout
// always did (reported to AccountDOs, closed, its last heartbeat stored as last seen). So a healthy
// machine's object wakes once per 10 to 15 s at the default 15 s timeout, to set the next alarm, and
// writes no row; a heartbeat encoded any other way still reaches the object and is stored and answered.
import { DurableObject } from "cloudflare:workers";
import { errorResponse, fail, type Failure } from "../../core/errors.ts";
import type { Env } from "../../core/env.ts";
import type { InstanceMetrics, MetricsWindow } from "../../core/metrics.ts";
import { useLogLevel } from "../../core/log.ts";
import type { ResourceShare } from "../../protocol/resource-share.ts";
import type { VolumeMount } from "../../protocol/volumes.ts";
import {
  isCredentialsEndedDirective, isKeySetDirective, type AppTicketRequest, type CredentialsEnded, type DesiredStateChange, type EndAppSessions,
  type MachineDirective, type ReserveRequest,
} from "../contracts/object-messages.ts";
import type { CurrentUsageAnswer } from "../contracts/current-usage.ts";
import type { IdleAnswer, IdleQuery } from "../contracts/idle-stop.ts";
import { FILES_PATH } from "../contracts/files-request.ts";
import { LOGS_PATH } from "../contracts/logs-request.ts";
import { SingleAlarm } from "../outbox/single-alarm.ts";
import { sqlFor } from "../sql.ts";
import { AccountKeySets } from "./account-key-sets.ts";
import { AgentSession } from "./agent-session.ts";
import { AgentSocket } from "./agent-socket.ts";
import { AppSessions } from "./app-sessions.ts";
import { ContainerLedger } from "./container-ledger.ts";
import { FleetPush } from "./fleet-push.ts";
import { MachineHealth } from "./host-health.ts";
import { MachineRecord } from "./machine-record.ts";
import { IdleWatch } from "./idle-watch.ts";
import { InstanceActivity } from "./instance-activity.ts";
import { MetricsStore } from "./metrics-store.ts";
import { ProxyAdmission } from "./proxy-admission.ts";
import { ProxyBridge } from "./proxy-bridge.ts";
import { createMachineSchema } from "./schema.ts";
import { SshKeyUse } from "./ssh-key-use.ts";
import { StreamEntries } from "./stream-entries.ts";
import { VolumeRequests } from "./volume-requests.ts";

export class MachineDO extends DurableObject<Env> {
  private readonly record: MachineRecord;
  private readonly agent: AgentSocket;
  /** Protected for the dev Worker's subclass (workers/dev/dev-machine-do.ts), which counts its open streams. */
  protected readonly bridge: ProxyBridge;
  private readonly ledger: ContainerLedger;
  private readonly session: AgentSession;
  private readonly keySets: AccountKeySets;
  private readonly appSessions: AppSessions;
  private readonly streams: StreamEntries;
  private readonly metrics: MetricsStore;
  private readonly activity: InstanceActivity;
  private readonly idle: IdleWatch;
  private readonly health: MachineHealth;
  private readonly alarms: SingleAlarm;
  private readonly volumes: VolumeRequests;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    useLogLevel(env.LOG_LEVEL);
    const sql = sqlFor(ctx.storage);
    createMachineSchema(sql);
    this.record = new MachineRecord(sql);
    this.agent = new AgentSocket(ctx, this.record);
    this.activity = new InstanceActivity(sql);
    this.bridge = new ProxyBridge(() => this.agent.current(), this.activity);
    // Everything the alarm times here is about real time passing: the platform's clock.
    this.alarms = new SingleAlarm(ctx, () => Date.now());
    this.keySets = new AccountKeySets(sql, (accountId, keySha256s) => this.bridge.credentials.end(accountId, { keySha256s }));
    this.health = new MachineHealth(sql);
    this.ledger = new ContainerLedger({ ctx, env, sql, record: this.record, agent: this.agent, alarms: this.alarms, keySets: this.keySets });
    this.metrics = new MetricsStore(sql, (instanceId) => (this.ledger.container(instanceId)?.desired ?? "destroyed") !== "destroyed");
    this.volumes = new VolumeRequests({ env, ledger: this.ledger, agent: this.agent, machineId: () => this.record.read()?.id, online: () => this.record.isOnline() });
    this.session = new AgentSession({
      ctx, env, record: this.record, agent: this.agent, ledger: this.ledger, bridge: this.bridge, alarms: this.alarms, metrics: this.metrics, health: this.health,
      activity: this.activity, sshKeyUse: new SshKeyUse({ bridge: this.bridge, ledger: this.ledger, alarms: this.alarms }), volumes: this.volumes,
    });
    this.idle = new IdleWatch({ record: this.record, ledger: this.ledger, metrics: this.metrics, activity: this.activity });
    this.appSessions = new AppSessions({
      sql, ledger: this.ledger, keySets: this.keySets, endedHere: (accountId, opener) => this.bridge.credentials.refusal(accountId, opener),
    });
    const admission = new ProxyAdmission({ env, ledger: this.ledger, record: this.record, keySets: this.keySets, appSessions: this.appSessions, alarms: this.alarms });
    this.streams = new StreamEntries({ record: this.record, ledger: this.ledger, bridge: this.bridge, admission, appSessions: this.appSessions });
    this.alarms.register(this.session.liveness, this.ledger.reports, new FleetPush(env, this.record, this.ledger, this.session.liveness, this.health), this.metrics);
  }

  initialize(id: number, name: string, agentToken: string): Promise<void> {
    return this.record.initialize(id, name, agentToken);
  }

  /** The operator's new agent token: the old one is refused from now on, and the agent it connected is cut off. */
  async replaceAgentToken(agentToken: string): Promise<void> {
    await this.record.replaceToken(agentToken);
    this.agent.closeAll(4003, "the agent token was replaced");
  }

  /** The operator retires the machine, only while nothing lives on it: its token then opens nothing. */
  retire(): { ok: true } | Failure {
    const live = this.ledger.liveCount();
    if (live > 0) return fail("conflict", `the machine still has ${live} instance(s) that are not destroyed; destroy them first`);
    this.record.forget();
    this.agent.closeAll(4003, "the machine was retired");
    return { ok: true };
  }

  override async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/agent/v1/connect") return this.session.accept(request);
    if (path === "/proxy") return this.streams.proxy(request);
    if (path === LOGS_PATH) return this.streams.logs(new URL(request.url));
    if (path === FILES_PATH) return this.streams.files(request);
    return errorResponse("not_found", "no such machine endpoint");
  }

  // ---- reservations, desired states and key sets (RPC from AccountDOs) ----

  /** `share`: what the instance gets of the host's memory and CPUs, as its agent will limit it (null before a hello said). */
  /** `ssh_host_key`: its agent's SSH server's public key line (null before an agent with one said hello). */
  reserve(request: ReserveRequest): { ok: true; gpu_indices: number[]; share: ResourceShare | null; ssh_host_key: string | null } | Failure {
    // Placement skips a degraded machine; this catches a launch that raced its report.
    if (this.health.degraded()) return fail("no_capacity", "the machine takes no new instances now");
    const reserved = this.ledger.reserve(request);
    if (!reserved.ok) return reserved;
    this.keySets.apply(request.key_set);
    return { ...reserved, share: this.record.shareFor(request.gpu_count), ssh_host_key: this.record.sshHostKey() };
  }

  reserveForStart(instanceId: string, gpuCount: number, generation: number, volumes: VolumeMount[]): { ok: true } | Failure {
    if (this.health.degraded()) return fail("gpus_busy", "the instance's machine takes no new instances now (it is under maintenance); try again later");
    const reserved = this.ledger.reserveForStart(instanceId, gpuCount, generation, volumes);
    // A start begins a new run: the web app sessions of the last one end.
    if (reserved.ok) this.appSessions.endForInstance(instanceId);
    return reserved;
  }

  /** An AccountDO's outbox batch: applied before this call returns, which is its acknowledgement. */
  applyDirectives(directives: MachineDirective[]): void {
    const changes: DesiredStateChange[] = [];
    for (const directive of directives) {
      if (isKeySetDirective(directive)) this.keySets.apply(directive.key_set);
      else if (isCredentialsEndedDirective(directive)) this.credentialsEnded(directive);
      else changes.push(directive);
    }
    if (changes.length > 0) this.ledger.applyDesiredStates(changes);
    for (const change of changes) {
      if (change.desired !== "destroyed") continue;
      this.appSessions.endForInstance(change.instance_id);
      this.metrics.forget(change.instance_id);
      this.activity.forget(change.instance_id);
    }
  }

  /** Sessions, SSH keys and API keys of an account ended: the web apps and streams they opened here end. */
  private credentialsEnded(ended: CredentialsEnded | EndAppSessions): void {
    this.appSessions.endOpenedBy(ended.account_id, ended.session_ids);
    const [sshKeyIds, keySha256s] = ended.kind === "credentials_ended" ? [ended.ssh_key_ids, ended.key_sha256s ?? []] : [[], []];
    this.bridge.credentials.end(ended.account_id, { sessionIds: ended.session_ids, sshKeyIds, keySha256s });
  }

  /** An account's `POST /v1/volumes/{id}/save`: the agent saves the instance's read-write volumes now, at their sizes in `volumes` (volume-requests.ts). */
  saveVolumes(instanceId: string, volumes: VolumeMount[]): { ok: true } | Failure {
    this.ledger.refreshMounts(instanceId, volumes);
    return this.volumes.saveVolumes(instanceId);
  }

  /** A volume of the instance grew: the commands after carry its new size (the agent's saves take it from them). */
  refreshVolumeMounts(instanceId: string, volumes: VolumeMount[]): void {
    this.ledger.refreshMounts(instanceId, volumes);
  }

  // ---- usage history (metrics-store.ts) ----

  /** The instance's usage over `window` (the caller has checked that the instance is the caller's). */
  instanceMetrics(instanceId: string, window: MetricsWindow): InstanceMetrics {
    return this.metrics.read(instanceId, window);
  }

  // ---- current use and the idle stop (idle-watch.ts; the AccountDO decides the stop: account/idle-stop.ts) ----

  /** Per instance, its GPUs' mean utilisation in the host's last sample (null: none current), for the instance object. */
  currentGpuUtil(instanceIds: string[]): Record<string, number | null> {
    return this.idle.currentGpuUtil(instanceIds);
  }

  /** Per instance, its figures in the host's last sample (null: none current), for GET /v1/metrics: one call for all of a machine's. */
  currentUsage(instanceIds: string[]): CurrentUsageAnswer {
    return this.idle.currentUsage(instanceIds);
  }

  /** Per instance, since when it has been idle (null: not idle now, or its host away). */
  idleSince(queries: IdleQuery[]): IdleAnswer {
    return this.idle.idleSince(queries);
  }

  // ---- instance web apps (tickets from AccountDOs, redeemed by the Worker) ----

  issueAppTicket(request: AppTicketRequest): Promise<{ ok: true; ticket: string; expires_ms: number } | Failure> {
    return this.appSessions.issueTicket(request);
  }

  redeemAppTicket(instanceId: string, port: number, ticketSha256: string): Promise<{ ok: true; token: string; expires_ms: number } | Failure> {
    return this.appSessions.redeemTicket(instanceId, port, ticketSha256);
  }

  // ---- the agent socket and the alarm ----

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.session.onFrame(ws, message);
  }

  override async webSocketClose(ws: WebSocket): Promise<void> {
    this.session.onClose(ws);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.session.onClose(ws);
  }

  override async alarm(): Promise<void> {
    await this.alarms.ring();
  }
}
