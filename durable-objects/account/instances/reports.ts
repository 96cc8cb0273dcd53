// Applies MachineDO reports to instances. Each report is applied at most once (per-machine seq) and
// only where it fits the instance's current intent: a late "running" for an instance the user has
// stopped changes nothing.
import { iso } from "../../../core/clock.ts";
import type { PortSpec } from "../../../core/port-spec.ts";
import type { MachineReport } from "../../contracts/object-messages.ts";
import type { Sql } from "../../sql.ts";
import { settleInstance, startAccruing } from "../money/billing.ts";
import { addEvent, type InstanceRow } from "./instance-row.ts";
import { recordKeyUse } from "../credentials/keys.ts";
import { NO_READINESS, withoutReadyPorts, withReadyPorts } from "./port-readiness.ts";
import { recordSshKeyUse } from "../credentials/ssh-keys.ts";
import type { Settlement } from "../money/settlement.ts";
import { endAttachments } from "../volumes/attachments.ts";
import { recordWebhookEvent } from "../webhooks/webhook-events.ts";

/** The reports of MachineDOs, each batch applied with billing settled in the same transaction. */
export class MachineReports {
  private readonly sql: Sql;
  private readonly transaction: <T>(fn: () => T) => T;
  private readonly settlement: Settlement;

  constructor(sql: Sql, transaction: <T>(fn: () => T) => T, settlement: Settlement) {
    this.sql = sql;
    this.transaction = transaction;
    this.settlement = settlement;
  }

  /** Returns the instance ids this account does not have on that machine (the MachineDO removes them). */
  apply(machineId: number, reports: MachineReport[]): string[] {
    return this.transaction(() => {
      const unknown = applyReports(this.sql, machineId, reports);
      this.settlement.settleNow();
      return unknown;
    });
  }
}

/** Applies reports in order; returns instance ids this account does not have on that machine. */
function applyReports(sql: Sql, machineId: number, reports: MachineReport[]): string[] {
  const unknown = new Set<string>();
  const [seen] = sql<{ last_seq: number }>`SELECT last_seq FROM machine_seq WHERE machine_id = ${machineId}`;
  let lastSeq = seen?.last_seq ?? 0;
  for (const report of reports) {
    if (report.seq <= lastSeq) continue;
    lastSeq = report.seq;
    if (report.kind === "key_used") {
      recordKeyUse(sql, report.key_sha256, iso(report.at));
      continue;
    }
    if (report.kind === "ssh_key_used") {
      recordSshKeyUse(sql, report.key_id, iso(report.at));
      continue;
    }
    const ids = report.kind === "host" ? report.instance_ids : [report.instance_id];
    for (const id of ids) {
      const row = sql<InstanceRow>`SELECT * FROM instances WHERE id = ${id}`[0];
      if (!row || (row.machine_id !== null && row.machine_id !== machineId)) {
        unknown.add(id);
        continue;
      }
      applyOne(sql, row, report);
    }
  }
  sql`INSERT INTO machine_seq (machine_id, last_seq) VALUES (${machineId}, ${lastSeq})
      ON CONFLICT (machine_id) DO UPDATE SET last_seq = excluded.last_seq`;
  return [...unknown];
}

function applyOne(sql: Sql, row: InstanceRow, report: Exclude<MachineReport, { kind: "key_used" | "ssh_key_used" }>): void {
  const at = iso(report.at);
  if (report.kind === "event") return addEvent(sql, row.id, report.message, at);
  if (report.kind === "host" && report.ssh_host_key) sql`UPDATE instances SET ssh_host_key = ${report.ssh_host_key} WHERE id = ${row.id}`;
  if (report.kind === "host") return applyHost(sql, row, report.online, report.at);
  if (report.kind === "ready") return applyReadiness(sql, row, report.ready_ports, at);
  const wantsRunning = row.desired_state === "running";
  switch (report.state) {
    case "pulling":
      return addEvent(sql, row.id, "Pulling image " + row.image, at);
    case "creating":
      return addEvent(sql, row.id, report.message ? `Creating container: ${report.message}` : "Creating container", at);
    case "running":
      if (!wantsRunning || (row.status !== "creating" && row.status !== "starting")) return;
      // A new run: no port is ready or announced until the agent's probes say so.
      sql`UPDATE instances SET status = 'running', status_message = '', started_at = ${at}, readiness = ${NO_READINESS} WHERE id = ${row.id}`;
      addEvent(sql, row.id, "Container started; instance is running", at);
      return startAccruing(sql, row.id, report.at);
    case "error":
      if (!wantsRunning || row.status === "stopped" || row.status === "error") return;
      return toError(sql, row, report.message || "The container failed", report.at);
    case "stopped":
      if (wantsRunning && row.status === "running") {
        return toError(sql, row, "The container stopped unexpectedly" + (report.message ? `: ${report.message}` : ""), report.at);
      }
      // While starting, a stopped report is the previous stop finishing (the agent runs one
      // instance's commands in order): still true, and logged at the time it happened.
      if (row.status === "stopped" || row.status === "starting") addEvent(sql, row.id, "Container stopped; data kept", at);
      return;
    case "destroyed":
      if (row.status !== "destroyed") return;
      // Its volumes' final save came before this report: they are free for other instances now.
      endAttachments(sql, row.id);
      return addEvent(sql, row.id, "Container and data removed from the host", at);
  }
}

function toError(sql: Sql, row: InstanceRow, message: string, atMs: number): void {
  settleInstance(sql, row, atMs, false);
  sql`UPDATE instances SET status = 'error', status_message = ${message}, readiness = ${NO_READINESS} WHERE id = ${row.id}`;
  addEvent(sql, row.id, `Error: ${message}`, iso(atMs));
}

function applyHost(sql: Sql, row: InstanceRow, online: boolean, atMs: number): void {
  if ((row.machine_online === 1) === online || row.status === "destroyed") return;
  if (online) {
    sql`UPDATE instances SET machine_online = 1 WHERE id = ${row.id}`;
    addEvent(sql, row.id, "Host is back online", iso(atMs));
    startAccruing(sql, row.id, atMs);
  } else {
    settleInstance(sql, row, atMs, false);
    sql`UPDATE instances SET machine_online = 0, readiness = ${withoutReadyPorts(row.readiness)} WHERE id = ${row.id}`;
    addEvent(sql, row.id, row.status === "running" ? "Host went offline; billing paused until it returns" : "Host went offline", iso(atMs));
  }
}

/** What the agent's probes found answering, while the instance runs on an online host. */
function applyReadiness(sql: Sql, row: InstanceRow, readyPorts: number[], at: string): void {
  if (row.status !== "running" || row.desired_state !== "running" || row.machine_online !== 1) return;
  const change = withReadyPorts(JSON.parse(row.ports) as PortSpec[], row.readiness, readyPorts, row.started_at, at);
  if (change.readiness !== row.readiness) sql`UPDATE instances SET readiness = ${change.readiness} WHERE id = ${row.id}`;
  for (const message of change.events) addEvent(sql, row.id, message, at);
  for (const ready of change.firstReady) recordWebhookEvent(sql, "instance.port_ready", { instance_id: row.id, ...ready }, Date.parse(at));
}
