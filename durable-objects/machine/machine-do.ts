// MachineDO, one per host machine. Authority for: which GPU indices are reserved by which instance
// (a GPU is free exactly when no reservation names it), each container's desired and last reported
// state, the agent connection and whether the machine is online. It keeps FleetDO's index current
// and tells AccountDOs what happens through a retried outbox. It also carries proxied streams.
import { DurableObject } from "cloudflare:workers";
import { bearerToken } from "../../core/credentials.ts";
import { errorResponse, fail, type Failure } from "../../core/errors.ts";
import { clock, iso } from "../../core/clock.ts";
import { constantTimeEqual, sha256Hex } from "../../core/hash.ts";
import { randomBase32 } from "../../core/ids.ts";
import type { Env } from "../../core/env.ts";
import { decodeAgentMessage, encodeMessage, PROTOCOL_VERSION, type AgentMessage, type ContainerSpec, type ContainerState, type ServerMessage } from "../../protocol/index.ts";
import type { DesiredStateChange, ReserveRequest } from "../object-messages.ts";
import { sqlFor, type Sql } from "../sql.ts";
import { ProxyBridge } from "./proxy-bridge.ts";
import { commandFor, commandForStart, type Actual, type Desired, type Op } from "./reconcile.ts";
import { acknowledgeReports, dueReports, enqueueReport, nextReportMs, postponeReports } from "./report-outbox.ts";
import { createMachineSchema } from "./schema.ts";
import { log } from "../../core/log.ts";

interface MachineRow {
  id: number;
  name: string;
  token_hash: string;
  online: number;
  last_seen_ms: number | null;
  connection: string | null;
  state_version: number;
  fleet_version: number;
}

interface ContainerRow {
  instance_id: string;
  account_id: string;
  gpu_model: string;
  gpu_count: number;
  spec: string;
  desired: Desired;
  actual: Actual;
  generation: number;
}

type Hello = Extract<AgentMessage, { type: "hello" }>;

export class MachineDO extends DurableObject<Env> {
  private readonly clock = clock;
  private readonly sql: Sql;
  private readonly bridge = new ProxyBridge(() => this.agentSocket());
  private delivering: Promise<void> | null = null;
  private deliverAgain = false;
  /** machine.connection mirrored in memory: it is checked on every agent frame (undefined = not read yet). */
  private connectionId: string | null | undefined = undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = sqlFor(ctx.storage);
    createMachineSchema(this.sql);
  }

  async initialize(id: number, name: string, agentToken: string): Promise<void> {
    const hash = await sha256Hex(agentToken);
    this.sql`INSERT OR REPLACE INTO machine (id, name, token_hash, online, last_seen_ms, connection, state_version, fleet_version)
             VALUES (${id}, ${name}, ${hash}, 0, NULL, NULL, 1, 0)`;
  }

  override async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === "/agent/v1/connect") return this.acceptAgent(request);
    if (path === "/proxy") return this.proxy(request);
    return errorResponse("not_found", "no such machine endpoint");
  }

  // ---- reservations (RPC from AccountDO) ----

  reserve(request: ReserveRequest): { ok: true; gpu_indices: number[] } | Failure {
    const machine = this.machine();
    if (!machine || machine.online !== 1) return fail("no_capacity", "the machine is offline");
    const existing = this.container(request.instance_id);
    if (existing) return { ok: true, gpu_indices: this.reservedIndices(request.instance_id) };
    const indices = this.freeIndices(request.gpu_model).slice(0, request.gpu_count);
    if (indices.length < request.gpu_count) return fail("no_capacity", "not enough free GPUs on this machine");
    const spec: ContainerSpec = { ...request.spec, gpu_indices: indices };
    this.ctx.storage.transactionSync(() => {
      for (const index of indices) this.sql`INSERT INTO reservations (gpu_index, instance_id) VALUES (${index}, ${request.instance_id})`;
      this.sql`INSERT INTO containers (instance_id, account_id, gpu_model, gpu_count, spec, desired, actual, generation)
               VALUES (${request.instance_id}, ${request.account_id}, ${request.gpu_model}, ${request.gpu_count},
                       ${JSON.stringify(spec)}, 'running', 'absent', ${request.generation})`;
      this.bumpState();
    });
    this.sendCommand(request.instance_id, "create");
    this.afterChange();
    return { ok: true, gpu_indices: indices };
  }

  reserveForStart(instanceId: string, gpuCount: number, generation: number): { ok: true } | Failure {
    const row = this.container(instanceId);
    if (!row || row.desired === "destroyed") return fail("conflict", "the instance has no container on this machine");
    if (generation <= row.generation) return { ok: true };
    const held = this.reservedIndices(instanceId);
    const indices = [...held, ...this.freeIndices(row.gpu_model)].slice(0, gpuCount);
    if (indices.length < gpuCount) return fail("gpus_busy", "the GPUs of this instance's machine are taken; try again later");
    const spec: ContainerSpec = { ...(JSON.parse(row.spec) as ContainerSpec), gpu_indices: indices };
    this.ctx.storage.transactionSync(() => {
      for (const index of indices.filter((i) => !held.includes(i))) {
        this.sql`INSERT INTO reservations (gpu_index, instance_id) VALUES (${index}, ${instanceId})`;
      }
      this.sql`UPDATE containers SET desired = 'running', generation = ${generation}, spec = ${JSON.stringify(spec)}
               WHERE instance_id = ${instanceId}`;
      this.bumpState();
    });
    const op = commandForStart(row.actual);
    if (op) this.sendCommand(instanceId, op);
    this.afterChange();
    return { ok: true };
  }

  applyDesiredStates(changes: DesiredStateChange[]): void {
    for (const change of changes) {
      const row = this.container(change.instance_id);
      if (!row || change.generation <= row.generation) continue;
      this.ctx.storage.transactionSync(() => {
        this.sql`UPDATE containers SET desired = ${change.desired}, generation = ${change.generation}
                 WHERE instance_id = ${change.instance_id}`;
        this.releaseGpus(change.instance_id);
      });
      const op = commandFor(change.desired, row.actual);
      if (op) this.sendCommand(change.instance_id, op);
    }
    this.afterChange();
  }

  // ---- the agent socket ----

  private async acceptAgent(request: Request): Promise<Response> {
    const machine = this.machine();
    const token = bearerToken(request.headers.get("authorization")) ?? "";
    if (!machine || !constantTimeEqual(machine.token_hash, await sha256Hex(token))) {
      return errorResponse("unauthorized", "agent token missing or wrong");
    }
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response(null, { status: 204 }); // token check only
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    const connection = randomBase32(12);
    for (const old of this.ctx.getWebSockets("agent")) closeQuietly(old, 4001, "replaced by a newer connection");
    this.bridge.abortAll();
    this.ctx.acceptWebSocket(server, ["agent"]);
    server.serializeAttachment({ connection });
    this.sql`UPDATE machine SET connection = ${connection}`;
    this.connectionId = connection;
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (!this.isCurrent(ws)) return closeQuietly(ws, 4001, "replaced by a newer connection");
    if (typeof message !== "string") {
      const problem = this.bridge.onBinary(new Uint8Array(message));
      if (problem) log("warn", "agent data frame rejected", { machine: this.machine()?.id, problem });
      return;
    }
    const decoded = decodeAgentMessage(message);
    if (!decoded.ok) return log("warn", "agent frame rejected", { machine: this.machine()?.id, reason: decoded.reason });
    await this.onAgentMessage(ws, decoded.message);
  }

  override async webSocketClose(ws: WebSocket): Promise<void> {
    if (this.isCurrent(ws)) this.goOffline();
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    if (this.isCurrent(ws)) this.goOffline();
  }

  private async onAgentMessage(ws: WebSocket, message: AgentMessage): Promise<void> {
    const nowMs = this.clock.now();
    switch (message.type) {
      case "hello":
        return this.onHello(ws, message);
      case "heartbeat":
        this.sql`UPDATE machine SET last_seen_ms = ${Date.now()}`;
        return void (await this.scheduleAlarm());
      case "container":
        return this.onContainerState(message.instance_id, message.state, message.message);
      case "pull_progress": {
        const row = this.container(message.instance_id);
        if (row) enqueueReport(this.sql, row.account_id, { kind: "event", instance_id: row.instance_id, message: `Pulling image: ${message.percent}%`, at: nowMs });
        return this.afterChange();
      }
      case "ack":
        if (!message.ok) log("warn", "agent command failed", { machine: this.machine()?.id, command: message.command_id, error: message.error });
        return;
      case "cache":
        this.replaceCache(message.models);
        this.bumpState();
        return this.afterChange();
      default:
        if (!this.bridge.onMessage(message) && message.type !== "window" && message.type !== "end") {
          log("info", "frame for an unknown stream", { type: message.type, stream: message.stream });
        }
    }
  }

  private onHello(ws: WebSocket, hello: Hello): void {
    if (hello.protocol !== PROTOCOL_VERSION) {
      log("warn", "agent speaks another protocol version", { version: hello.protocol });
      return closeQuietly(ws, 4002, `protocol ${PROTOCOL_VERSION} required`);
    }
    const nowMs = this.clock.now();
    const wasOnline = this.machine()?.online === 1;
    const reported = new Map(hello.containers.map((c) => [c.instance_id, c.state]));
    this.ctx.storage.transactionSync(() => {
      this.sql`UPDATE machine SET online = 1, last_seen_ms = ${Date.now()}`;
      this.sql`DELETE FROM gpus`;
      for (const gpu of hello.gpus) {
        this.sql`INSERT INTO gpus (idx, model, name, uuid, vram_mb) VALUES (${gpu.index}, ${gpu.model}, ${gpu.name}, ${gpu.uuid}, ${gpu.vram_mb})`;
      }
      this.replaceCache(hello.cached_models);
      this.sql`INSERT OR REPLACE INTO host_versions (id, agent_version, driver_version, cuda_version)
               VALUES (1, ${hello.agent_version}, ${hello.driver_version}, ${hello.cuda_version})`;
      for (const row of this.containers()) {
        const actual = reported.get(row.instance_id) ?? "absent";
        this.sql`UPDATE containers SET actual = ${actual} WHERE instance_id = ${row.instance_id}`;
        // A container meant to be stopped that the host reports stopped (or gone) is settled: say so.
        if (row.desired === "stopped" && row.actual !== "stopped" && (actual === "stopped" || actual === "absent")) {
          enqueueReport(this.sql, row.account_id, { kind: "state", instance_id: row.instance_id, state: "stopped", message: "", at: nowMs });
        }
      }
      if (!wasOnline) this.reportHost(true, nowMs);
      this.bumpState();
    });
    const heartbeatMs = Math.max(100, Math.floor(this.heartbeatTimeoutMs() / 3));
    this.send({ type: "welcome", protocol: PROTOCOL_VERSION, machine_id: this.machine()!.id, heartbeat_ms: heartbeatMs });
    for (const instanceId of reported.keys()) {
      if (!this.container(instanceId)) this.sendCommand(instanceId, "destroy");
    }
    for (const row of this.containers()) {
      const op = commandFor(row.desired, row.actual);
      if (op) this.sendCommand(row.instance_id, op);
    }
    log("info", "agent online", { machine: this.machine()?.id, gpus: hello.gpus.length, containers: hello.containers.length });
    this.afterChange();
  }

  private onContainerState(instanceId: string, state: ContainerState, message: string): void {
    const row = this.container(instanceId);
    if (!row) {
      if (state !== "destroyed") this.sendCommand(instanceId, "destroy");
      return;
    }
    const nowMs = this.clock.now();
    this.ctx.storage.transactionSync(() => {
      if (state === "destroyed" && row.desired === "destroyed") {
        this.sql`DELETE FROM containers WHERE instance_id = ${instanceId}`;
      } else {
        this.sql`UPDATE containers SET actual = ${state} WHERE instance_id = ${instanceId}`;
      }
      if (state === "error") this.releaseGpus(instanceId);
      enqueueReport(this.sql, row.account_id, { kind: "state", instance_id: instanceId, state, message, at: nowMs });
    });
    const op = state === "error" ? null : commandFor(row.desired, state);
    if (op) this.sendCommand(instanceId, op);
    this.afterChange();
  }

  private goOffline(): void {
    const machine = this.machine();
    this.bridge.abortAll();
    if (!machine || machine.online !== 1) return;
    const nowMs = this.clock.now();
    this.ctx.storage.transactionSync(() => {
      this.sql`UPDATE machine SET online = 0, connection = NULL`;
      this.connectionId = null;
      this.reportHost(false, nowMs);
      this.bumpState();
    });
    for (const ws of this.ctx.getWebSockets("agent")) closeQuietly(ws, 4003, "machine marked offline");
    log("info", "agent offline", { machine: machine.id });
    this.afterChange();
  }

  // ---- the proxy ----

  private async proxy(request: Request): Promise<Response> {
    const response = await this.openProxyStream(request);
    response.headers.set("x-request-id", request.headers.get("x-gpr-request-id") ?? "");
    return response;
  }

  private async openProxyStream(request: Request): Promise<Response> {
    const instanceId = request.headers.get("x-gpr-instance") ?? "";
    const row = this.container(instanceId);
    if (!row || row.desired !== "running") return upstreamGone();
    const headers: [string, string][] = [];
    const websocket = request.headers.get("upgrade")?.toLowerCase() === "websocket";
    for (const [name, value] of request.headers) {
      if (name.startsWith("x-gpr-")) continue;
      if (websocket && (name.startsWith("sec-websocket-") || name === "upgrade" || name === "connection")) continue;
      headers.push([name, value]);
    }
    const target = {
      instanceId,
      port: Number(request.headers.get("x-gpr-port")),
      target: request.headers.get("x-gpr-target") ?? "/",
      method: request.method,
      headers,
    };
    if (websocket) {
      const protocols = (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim()).filter(Boolean);
      return this.bridge.openWebSocket(target, protocols);
    }
    return this.bridge.openHttp(target, request.body);
  }

  // ---- alarm: heartbeat timeout, report delivery, fleet index ----

  override async alarm(): Promise<void> {
    const machine = this.machine();
    if (!machine) return;
    if (machine.online === 1 && machine.last_seen_ms !== null && Date.now() - machine.last_seen_ms >= this.heartbeatTimeoutMs()) {
      log("warn", "agent heartbeat timed out", { machine: machine.id });
      this.goOffline();
    }
    await this.deliverReports();
    await this.pushFleet();
    await this.scheduleAlarm();
  }

  // ---- internals ----

  private afterChange(): void {
    this.ctx.waitUntil(
      Promise.all([this.deliverReports(), this.pushFleet()]).then(() => this.scheduleAlarm()),
    );
  }

  /**
   * Single flight: every state change asks for a delivery, and concurrent deliveries would each
   * resend every unacknowledged report (quadratic under a burst of launches). One runs at a time
   * and goes round again if asked meanwhile.
   */
  private deliverReports(): Promise<void> {
    if (this.delivering) {
      this.deliverAgain = true;
      return this.delivering;
    }
    this.delivering = (async () => {
      try {
        do {
          this.deliverAgain = false;
          await this.deliverDueReports();
        } while (this.deliverAgain);
      } finally {
        this.delivering = null;
      }
    })();
    return this.delivering;
  }

  private async deliverDueReports(): Promise<void> {
    const machine = this.machine();
    if (!machine) return;
    for (const [accountId, batch] of dueReports(this.sql, Date.now())) {
      try {
        const { unknown } = await this.env.ACCOUNTS.getByName(accountId).applyMachineReports(machine.id, batch.reports);
        acknowledgeReports(this.sql, batch.seqs);
        for (const instanceId of unknown) this.forgetOrphan(instanceId, accountId);
      } catch (error) {
        log("warn", "report delivery failed; will retry", { account: accountId, error: String(error) });
        postponeReports(this.sql, accountId, Date.now());
      }
    }
  }

  /** An account does not know this container (a launch that never completed): remove it. */
  private forgetOrphan(instanceId: string, accountId: string): void {
    const row = this.container(instanceId);
    if (!row || row.account_id !== accountId || row.desired === "destroyed") return;
    this.ctx.storage.transactionSync(() => {
      this.sql`UPDATE containers SET desired = 'destroyed' WHERE instance_id = ${instanceId}`;
      this.releaseGpus(instanceId);
    });
    this.sendCommand(instanceId, "destroy");
  }

  private async pushFleet(): Promise<void> {
    const machine = this.machine();
    if (!machine || machine.fleet_version >= machine.state_version) return;
    const gpus = this.sql<{ idx: number; model: string; name: string }>`SELECT idx, model, name FROM gpus ORDER BY idx`;
    const reserved = new Set(this.sql<{ gpu_index: number }>`SELECT gpu_index FROM reservations`.map((r) => r.gpu_index));
    const versions = this.sql<{ agent_version: string; driver_version: string; cuda_version: string }>`SELECT agent_version, driver_version, cuda_version FROM host_versions`[0];
    try {
      await this.env.FLEET.getByName("fleet").reportMachine(machine.id, {
        ...(versions ?? { agent_version: "", driver_version: "", cuda_version: "" }),
        version: machine.state_version,
        online: machine.online === 1,
        last_seen_at: machine.last_seen_ms === null ? null : iso(machine.last_seen_ms),
        gpus: gpus.map((g) => ({ model: g.model, index: g.idx, name: g.name })),
        free_indices: gpus.filter((g) => !reserved.has(g.idx)).map((g) => g.idx),
        cached_models: this.sql<{ hf: string }>`SELECT hf FROM cached_models ORDER BY hf`.map((r) => r.hf),
      });
      this.sql`UPDATE machine SET fleet_version = MAX(fleet_version, ${machine.state_version})`;
    } catch (error) {
      log("warn", "fleet index update failed; will retry", { machine: machine.id, error: String(error) });
    }
  }

  private async scheduleAlarm(): Promise<void> {
    const machine = this.machine();
    if (!machine) return;
    // Everything here is on the platform's clock: retries and liveness are about real time passing.
    const due: number[] = [];
    if (machine.online === 1 && machine.last_seen_ms !== null) due.push(machine.last_seen_ms + this.heartbeatTimeoutMs());
    const report = nextReportMs(this.sql);
    if (report !== null) due.push(report);
    if (machine.fleet_version < machine.state_version) due.push(Date.now() + 1000);
    if (due.length === 0) return this.ctx.storage.deleteAlarm();
    await this.ctx.storage.setAlarm(Math.max(Date.now(), Math.min(...due)));
  }

  private sendCommand(instanceId: string, op: Op): void {
    const row = this.container(instanceId);
    const spec = row ? (JSON.parse(row.spec) as ContainerSpec) : null;
    const commandId = `${instanceId}/${row?.generation ?? 0}/${op}/${randomBase32(6)}`;
    this.send({ type: "command", command_id: commandId, op, instance_id: instanceId, spec });
  }

  private send(message: ServerMessage): void {
    const socket = this.agentSocket();
    if (socket && this.machine()?.online === 1) {
      try {
        socket.send(encodeMessage(message));
      } catch {
        // Lost with the connection: the next hello reconciles from scratch.
      }
    }
  }

  private reportHost(online: boolean, nowMs: number): void {
    const byAccount = Map.groupBy(this.containers().filter((c) => c.desired !== "destroyed"), (c) => c.account_id);
    for (const [accountId, rows] of byAccount) {
      enqueueReport(this.sql, accountId, { kind: "host", online, instance_ids: rows.map((r) => r.instance_id), at: nowMs });
    }
  }

  private replaceCache(models: string[]): void {
    this.sql`DELETE FROM cached_models`;
    for (const hf of new Set(models)) this.sql`INSERT INTO cached_models (hf) VALUES (${hf})`;
  }

  private releaseGpus(instanceId: string): void {
    this.sql`DELETE FROM reservations WHERE instance_id = ${instanceId}`;
    this.bumpState();
  }

  private bumpState(): void {
    this.sql`UPDATE machine SET state_version = state_version + 1`;
  }

  private freeIndices(model: string): number[] {
    return this.sql<{ idx: number }>`SELECT idx FROM gpus WHERE model = ${model}
      AND idx NOT IN (SELECT gpu_index FROM reservations) ORDER BY idx`.map((r) => r.idx);
  }

  private reservedIndices(instanceId: string): number[] {
    return this.sql<{ gpu_index: number }>`SELECT gpu_index FROM reservations WHERE instance_id = ${instanceId} ORDER BY gpu_index`
      .map((r) => r.gpu_index);
  }

  private machine(): MachineRow | undefined {
    return this.sql<MachineRow>`SELECT id, name, token_hash, online, last_seen_ms, connection, state_version, fleet_version FROM machine`[0];
  }

  private container(instanceId: string): ContainerRow | undefined {
    return this.sql<ContainerRow>`SELECT * FROM containers WHERE instance_id = ${instanceId}`[0];
  }

  private containers(): ContainerRow[] {
    return this.sql<ContainerRow>`SELECT * FROM containers`;
  }

  private agentSocket(): WebSocket | null {
    return this.ctx.getWebSockets("agent").find((ws) => this.isCurrent(ws)) ?? null;
  }

  private isCurrent(ws: WebSocket): boolean {
    const attachment = ws.deserializeAttachment() as { connection?: string } | null;
    this.connectionId ??= this.machine()?.connection ?? null;
    return attachment?.connection !== undefined && attachment.connection === this.connectionId;
  }

  private heartbeatTimeoutMs(): number {
    return Number(this.env.HEARTBEAT_TIMEOUT_MS ?? 15000) || 15000;
  }
}

function upstreamGone(): Response {
  return errorResponse("upstream_unavailable", "the instance has no running container on its host");
}

function closeQuietly(ws: WebSocket, code: number, reason: string): void {
  try {
    ws.close(code, reason);
  } catch {
    // Already closed: nothing to tell it.
  }
}
