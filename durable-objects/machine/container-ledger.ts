// The containers of this machine and the GPUs they hold. Authority for: which GPU index is reserved by
// which instance (a GPU is free exactly when no reservation names it), each container's desired state
// (set by its AccountDO, ordered by generation) and its actual state (as the agent last reported it).
// Every change becomes the agent command that moves a container closer to its desired state, and a
// report to the owning AccountDO through this object's outbox.
import { clock } from "../../core/clock.ts";
import { fail, type Failure } from "../../core/errors.ts";
import { randomBase32 } from "../../core/ids.ts";
import { log } from "../../core/log.ts";
import { accountOf, type Env } from "../../core/env.ts";
import type { ContainerSpec, ContainerState, VolumeMount } from "../../protocol/index.ts";
import { diskRoomGb, type MachineDisk } from "../contracts/fleet.ts";
import type { DesiredStateChange, MachineReport, MachineReportBody, ReserveRequest } from "../contracts/object-messages.ts";
import { Outbox, type Queued } from "../outbox/outbox.ts";
import type { SingleAlarm } from "../outbox/single-alarm.ts";
import type { Sql } from "../sql.ts";
import type { AccountKeySets } from "./account-key-sets.ts";
import type { AgentSocket } from "./agent-socket.ts";
import { CommandSender } from "./command-sender.ts";
import type { MachineRecord } from "./machine-record.ts";
import { commandFor, commandForStart, type Actual, type Desired, type Op } from "./reconcile.ts";

export interface ContainerRow {
  instance_id: string;
  account_id: string;
  gpu_model: string;
  gpu_count: number;
  spec: string;
  desired: Desired;
  actual: Actual;
  generation: number;
}

export interface LedgerParts {
  ctx: DurableObjectState;
  env: Env;
  sql: Sql;
  record: MachineRecord;
  agent: AgentSocket;
  alarms: SingleAlarm;
  keySets: AccountKeySets;
}

export class ContainerLedger {
  /** Reports to AccountDOs, keyed by account id; their seq is this machine's report number. */
  readonly reports: Outbox<MachineReportBody>;
  private readonly ctx: DurableObjectState;
  private readonly env: Env;
  private readonly sql: Sql;
  private readonly record: MachineRecord;
  private readonly commands: CommandSender;
  private readonly alarms: SingleAlarm;
  private readonly keySets: AccountKeySets;
  /**
   * Rows the proxy read, by instance id: it reads its container on every request. Filled by
   * containerForProxy (the proxy runs in no transaction, so only committed rows), emptied by every
   * write to the containers table before it is made (so also by one a failed transaction rolls back).
   * Holds only rows that exist: an id the machine does not know is read again each time.
   */
  private readonly proxyRows = new Map<string, ContainerRow>();

  constructor(parts: LedgerParts) {
    this.ctx = parts.ctx;
    this.env = parts.env;
    this.sql = parts.sql;
    this.record = parts.record;
    this.commands = new CommandSender(parts.agent, parts.env.INSTANCE_TOKEN_SECRET, () => parts.record.read()?.id);
    this.alarms = parts.alarms;
    this.keySets = parts.keySets;
    // Retries are about real time passing: the platform's clock.
    this.reports = new Outbox<MachineReportBody>(this.sql, {
      name: "report",
      now: () => Date.now(),
      send: (accountId, batch) => this.sendReports(accountId, batch),
      logIds: (accountId) => ({ machine_id: this.record.read()?.id, account_id: accountId }),
      queued: () => this.alarms.backstop(),
    });
  }

  // ---- from AccountDOs ----

  reserve(request: ReserveRequest): { ok: true; gpu_indices: number[] } | Failure {
    if (!this.record.isOnline()) return fail("no_capacity", "the machine is offline");
    const existing = this.container(request.instance_id);
    if (existing) return { ok: true, gpu_indices: this.reservedIndices(request.instance_id) };
    const indices = this.freeIndices(request.gpu_model).slice(0, request.gpu_count);
    if (indices.length < request.gpu_count) return fail("no_capacity", "not enough free GPUs on this machine");
    // Placement skips a machine without the disk; this catches a launch that raced another's reservation.
    const diskRoom = diskRoomGb(this.disk());
    if (diskRoom !== null && request.spec.disk_gb > diskRoom) return fail("no_capacity", `not enough disk on this machine: ${Math.max(0, diskRoom)} GB left for new instances`);
    const spec: ContainerSpec = { ...request.spec, gpu_indices: indices };
    this.proxyRows.clear();
    this.ctx.storage.transactionSync(() => {
      for (const index of indices) this.sql`INSERT INTO reservations (gpu_index, instance_id) VALUES (${index}, ${request.instance_id})`;
      this.sql`INSERT INTO containers (instance_id, account_id, gpu_model, gpu_count, spec, desired, actual, generation)
               VALUES (${request.instance_id}, ${request.account_id}, ${request.gpu_model}, ${request.gpu_count},
                       ${JSON.stringify(spec)}, 'running', 'absent', ${request.generation})`;
      this.record.bumpState();
    });
    this.sendCommand(request.instance_id, "create");
    this.alarms.afterChange();
    return { ok: true, gpu_indices: indices };
  }

  /** `volumes`: the spec's mounts as the account has them now, which the start's command carries. */
  reserveForStart(instanceId: string, gpuCount: number, generation: number, volumes: VolumeMount[]): { ok: true } | Failure {
    const row = this.container(instanceId);
    if (!row || row.desired === "destroyed") return fail("conflict", "the instance has no container on this machine");
    if (generation <= row.generation) return { ok: true };
    // The container keeps the devices it was created with: a start takes back exactly those GPUs,
    // or none, so the reservation and what the container can reach always agree.
    const spec = JSON.parse(row.spec) as ContainerSpec;
    const indices = spec.gpu_indices;
    const held = this.reservedIndices(instanceId);
    const free = new Set(this.freeIndices(row.gpu_model));
    if (indices.length < gpuCount || indices.some((i) => !held.includes(i) && !free.has(i))) {
      return fail("gpus_busy", "the GPUs of this instance are in use by another instance now; try again later");
    }
    this.proxyRows.clear();
    this.ctx.storage.transactionSync(() => {
      for (const index of indices.filter((i) => !held.includes(i))) {
        this.sql`INSERT INTO reservations (gpu_index, instance_id) VALUES (${index}, ${instanceId})`;
      }
      this.sql`UPDATE containers SET desired = 'running', generation = ${generation} WHERE instance_id = ${instanceId}`;
      if (volumes.length > 0) this.sql`UPDATE containers SET spec = ${JSON.stringify({ ...spec, volumes })} WHERE instance_id = ${instanceId}`;
      this.record.bumpState();
    });
    const op = commandForStart(row.actual);
    if (op) this.sendCommand(instanceId, op);
    this.alarms.afterChange();
    return { ok: true };
  }

  /**
   * The instance's volumes as its account has them now (a volume grown while the instance has it):
   * the spec the commands after carry. False when there is no live container to keep them for.
   */
  refreshMounts(instanceId: string, volumes: VolumeMount[]): boolean {
    const row = this.container(instanceId);
    if (!row || row.desired === "destroyed" || volumes.length === 0) return false;
    const spec = JSON.parse(row.spec) as ContainerSpec;
    this.sql`UPDATE containers SET spec = ${JSON.stringify({ ...spec, volumes })} WHERE instance_id = ${instanceId}`;
    return true;
  }

  applyDesiredStates(changes: DesiredStateChange[]): void {
    for (const change of changes) {
      const row = this.container(change.instance_id);
      if (!row || change.generation <= row.generation) continue;
      this.proxyRows.clear();
      this.ctx.storage.transactionSync(() => {
        this.sql`UPDATE containers SET desired = ${change.desired}, generation = ${change.generation}
                 WHERE instance_id = ${change.instance_id}`;
        this.releaseGpus(change.instance_id);
      });
      const op = commandFor(change.desired, row.actual);
      if (op) this.sendCommand(change.instance_id, op);
    }
    this.alarms.afterChange();
  }

  // ---- from the agent ----

  /** Inside the hello's transaction: what the host reports becomes each container's actual state. */
  takeReportedStates(reported: Map<string, ContainerState>, nowMs: number): void {
    this.proxyRows.clear();
    for (const row of this.containers()) {
      const actual = reported.get(row.instance_id) ?? "absent";
      this.sql`UPDATE containers SET actual = ${actual} WHERE instance_id = ${row.instance_id}`;
      // A container meant to be stopped that the host reports stopped (or gone) is settled: say so.
      if (row.desired === "stopped" && row.actual !== "stopped" && (actual === "stopped" || actual === "absent")) {
        this.reports.enqueue(row.account_id, { kind: "state", instance_id: row.instance_id, state: "stopped", message: "", at: nowMs });
      }
    }
  }

  /** After the welcome: removes containers this machine does not know, and commands every other one. */
  reconcile(reportedIds: Iterable<string>): void {
    for (const instanceId of reportedIds) {
      if (!this.container(instanceId)) this.sendCommand(instanceId, "destroy");
    }
    for (const row of this.containers()) {
      const op = commandFor(row.desired, row.actual);
      if (op) this.sendCommand(row.instance_id, op);
    }
  }

  onContainerState(instanceId: string, state: ContainerState, message: string): void {
    const row = this.container(instanceId);
    if (!row) {
      if (state !== "destroyed") this.sendCommand(instanceId, "destroy");
      return;
    }
    const nowMs = clock.now();
    this.proxyRows.clear();
    this.ctx.storage.transactionSync(() => {
      if (state === "destroyed" && row.desired === "destroyed") {
        this.sql`DELETE FROM containers WHERE instance_id = ${instanceId}`;
        if (!this.hostsAccount(row.account_id)) this.keySets.forget(row.account_id);
        // Its disk_gb is no longer promised: the fleet's index learns it has that much more.
        this.record.bumpState();
      } else {
        this.sql`UPDATE containers SET actual = ${state} WHERE instance_id = ${instanceId}`;
      }
      if (state === "error") this.releaseGpus(instanceId);
      this.reports.enqueue(row.account_id, { kind: "state", instance_id: instanceId, state, message, at: nowMs });
    });
    const op = state === "error" ? null : commandFor(row.desired, state);
    if (op) this.sendCommand(instanceId, op);
    this.alarms.afterChange();
  }

  onPullProgress(instanceId: string, percent: number): void {
    const row = this.container(instanceId);
    if (row) this.reports.enqueue(row.account_id, { kind: "event", instance_id: row.instance_id, message: `Pulling image: ${percent}%`, at: clock.now() });
    this.alarms.afterChange();
  }

  /** The agent's ready ports of a container, told to its account while the container is meant to run. */
  reportReadiness(instanceId: string, readyPorts: number[], nowMs: number): void {
    const row = this.container(instanceId);
    if (row?.desired === "running") this.reports.enqueue(row.account_id, { kind: "ready", instance_id: instanceId, ready_ports: readyPorts, at: nowMs });
  }

  /** Inside a transaction: tells every account with containers here that the host came or went (and, coming, its SSH host key). */
  reportHost(online: boolean, nowMs: number, sshHostKey: string | null = null): void {
    const byAccount = Map.groupBy(this.containers().filter((c) => c.desired !== "destroyed"), (c) => c.account_id);
    for (const [accountId, rows] of byAccount) {
      const key = sshHostKey === null ? {} : { ssh_host_key: sshHostKey };
      this.reports.enqueue(accountId, { kind: "host", online, instance_ids: rows.map((r) => r.instance_id), at: nowMs, ...key });
    }
  }

  // ---- reads ----

  /** How many instances live on this machine: every container not yet destroyed. */
  liveCount(): number {
    return this.containers().filter((row) => row.desired !== "destroyed").length;
  }

  /** The machine's disk as its agent said, with the disk_gb promised to every container here not yet gone; null when not said. */
  disk(): MachineDisk | null {
    const disk = this.record.disk();
    if (!disk) return null;
    const [promised] = this.sql<{ gb: number }>`SELECT COALESCE(SUM(json_extract(spec, '$.disk_gb')), 0) AS gb FROM containers`;
    return { ...disk, promised_gb: promised?.gb ?? 0 };
  }

  container(instanceId: string): ContainerRow | undefined {
    return this.sql<ContainerRow>`SELECT * FROM containers WHERE instance_id = ${instanceId}`[0];
  }

  /** container() without a storage read after the first: only for callers outside any transaction (the proxy's). */
  containerForProxy(instanceId: string): ContainerRow | undefined {
    const known = this.proxyRows.get(instanceId);
    if (known) return known;
    const row = this.container(instanceId);
    if (row) this.proxyRows.set(instanceId, row);
    return row;
  }

  reservedGpuIndices(): Set<number> {
    return new Set(this.sql<{ gpu_index: number }>`SELECT gpu_index FROM reservations`.map((r) => r.gpu_index));
  }

  // ---- internals ----

  private async sendReports(accountId: string, batch: Queued<MachineReportBody>[]): Promise<void> {
    const machine = this.record.read()!;
    const reports = batch.map(({ seq, message }) => ({ ...message, seq }) as MachineReport);
    const { unknown } = await accountOf(this.env, accountId).applyMachineReports(machine.id, reports);
    for (const instanceId of unknown) this.forgetOrphan(instanceId, accountId);
  }

  /** An account does not know this container (a launch that never completed): remove it. */
  private forgetOrphan(instanceId: string, accountId: string): void {
    const row = this.container(instanceId);
    if (!row || row.account_id !== accountId || row.desired === "destroyed") return;
    this.proxyRows.clear();
    this.ctx.storage.transactionSync(() => {
      this.sql`UPDATE containers SET desired = 'destroyed' WHERE instance_id = ${instanceId}`;
      this.releaseGpus(instanceId);
    });
    this.sendCommand(instanceId, "destroy");
    log("info", "container removed: its account does not know the instance", { machine_id: this.record.read()?.id, account_id: accountId, instance_id: instanceId });
  }

  private sendCommand(instanceId: string, op: Op): void {
    const row = this.container(instanceId);
    const spec = row ? (JSON.parse(row.spec) as ContainerSpec) : null;
    const commandId = `${instanceId}/${row?.generation ?? 0}/${op}/${randomBase32(6)}`;
    this.commands.send({ type: "command", command_id: commandId, op, instance_id: instanceId, spec }, row?.account_id ?? null);
  }

  private releaseGpus(instanceId: string): void {
    this.sql`DELETE FROM reservations WHERE instance_id = ${instanceId}`;
    this.record.bumpState();
  }

  private freeIndices(model: string): number[] {
    return this.sql<{ idx: number }>`SELECT idx FROM gpus WHERE model = ${model}
      AND idx NOT IN (SELECT gpu_index FROM reservations) ORDER BY idx`.map((r) => r.idx);
  }

  private reservedIndices(instanceId: string): number[] {
    return this.sql<{ gpu_index: number }>`SELECT gpu_index FROM reservations WHERE instance_id = ${instanceId} ORDER BY gpu_index`
      .map((r) => r.gpu_index);
  }

  private containers(): ContainerRow[] {
    return this.sql<ContainerRow>`SELECT * FROM containers`;
  }

  private hostsAccount(accountId: string): boolean {
    return this.sql<{ one: number }>`SELECT 1 AS one FROM containers WHERE account_id = ${accountId} LIMIT 1`.length > 0;
  }
}
