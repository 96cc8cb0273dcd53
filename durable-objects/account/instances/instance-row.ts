// Instance rows as stored in AccountDO, and their public shape (the API's Instance object).
import type { PortSpec } from "../../../core/port-spec.ts";
import { sshFingerprint } from "../../../core/ssh-public-key.ts";
import type { Sql } from "../../sql.ts";
import { instancePorts, type InstancePort } from "./port-readiness.ts";
import type { InstanceVolume } from "../volumes/attachments.ts";

export type InstanceStatus = "creating" | "starting" | "running" | "stopped" | "error" | "destroyed";
export type DesiredState = "running" | "stopped" | "destroyed";

export interface InstanceRow {
  id: string;
  label: string;
  status: InstanceStatus;
  status_message: string;
  desired_state: DesiredState;
  gpu_model: string;
  gpu_count: number;
  template: string;
  model: string;
  image: string;
  disk_gb: number;
  ports: string;
  env: string;
  price_hour_micros: number;
  machine_id: number | null;
  machine_online: number;
  created_at: string;
  created_ms: number;
  started_at: string | null;
  destroyed_ms: number | null;
  generation: number;
  billed_until_ms: number | null;
  carry: number;
  /** Which HTTP ports answer their readiness path in this run (port-readiness.ts). */
  readiness: string;
  /** When the last launch or start is given up unless its host confirms it first (launch-timeout.ts). */
  launch_deadline_ms: number | null;
  /** Its share of the host's memory (whole MiB) and CPUs (thousandths), which its container is limited to; null when unknown. */
  memory_mib: number | null;
  milli_cpus: number | null;
  /** The ledger row its running time of this clock hour is added to; null when closed (charge-rows.ts). */
  open_charge_seq: number | null;
  /** Stop it after this many minutes idle; null: never (idle-stop.ts). */
  idle_stop_minutes: number | null;
  /** Idle time counts from here on at the earliest (the setting's last change); when the idle stop next checks. */
  idle_from_ms: number | null;
  idle_check_ms: number | null;
  /** Its host's SSH server's public key line; null until the host has said one. */
  ssh_host_key: string | null;
  /** The volumes it was launched with, as JSON (volumes/attachments.ts). */
  volumes: string;
  /** The API key that launched it, whose monthly limit its spend counts against (money/budgets.ts); null: a person. */
  launched_by_key: string | null;
}

/** The public instance object: the row without its bookkeeping, JSON columns decoded, readiness in its ports. */
export type Instance = Omit<
  InstanceRow,
  | "ports" | "env" | "machine_id" | "machine_online" | "created_ms" | "destroyed_ms" | "generation" | "billed_until_ms" | "carry" | "readiness"
  | "launch_deadline_ms" | "memory_mib" | "milli_cpus" | "open_charge_seq" | "idle_from_ms" | "idle_check_ms" | "ssh_host_key" | "volumes" | "launched_by_key"
> & {
  ports: InstancePort[];
  env: Record<string, string>;
  /** The instance's proxy token, computed when shown (instanceTokenFor): the row has none. */
  token: string;
  machine_id: number;
  machine_online: boolean;
  /** Whole GiB of memory and CPUs (to a hundredth) its container may use; null when its host has not said what it has. */
  memory_gb: number | null;
  vcpus: number | null;
  /** Its GPUs' mean utilisation in its host's last sample, as the MachineDO says when shown; null without a current one. */
  gpu_util_percent: number | null;
  /** How `ssh` knows its host: the key line for known_hosts, the fingerprint a person compares; null until the host said its key. */
  ssh: { host_key: string; host_key_fingerprint: string; user: "root" } | null;
  volumes: InstanceVolume[];
};

export function toInstance(row: InstanceRow, token: string, gpuUtilPercent: number | null): Instance {
  return {
    id: row.id,
    label: row.label,
    status: row.status,
    status_message: row.status_message,
    desired_state: row.desired_state,
    gpu_model: row.gpu_model,
    gpu_count: row.gpu_count,
    template: row.template,
    model: row.model,
    image: row.image,
    disk_gb: row.disk_gb,
    memory_gb: row.memory_mib === null ? null : Math.floor(row.memory_mib / 1024),
    vcpus: row.milli_cpus === null ? null : Math.floor(row.milli_cpus / 10) / 100,
    ports: instancePorts(JSON.parse(row.ports) as PortSpec[], row.readiness),
    env: JSON.parse(row.env) as Record<string, string>,
    token,
    price_hour_micros: row.price_hour_micros,
    machine_id: row.machine_id ?? 0,
    machine_online: row.machine_online === 1,
    created_at: row.created_at,
    started_at: row.started_at,
    gpu_util_percent: gpuUtilPercent,
    idle_stop_minutes: row.idle_stop_minutes,
    ssh: sshOf(row.ssh_host_key),
    volumes: JSON.parse(row.volumes) as InstanceVolume[],
  };
}

function sshOf(hostKey: string | null): Instance["ssh"] {
  const blob = hostKey?.split(" ")[1];
  return hostKey && blob ? { host_key: hostKey, host_key_fingerprint: sshFingerprint(blob), user: "root" } : null;
}

/** A placed instance (rows being placed have no machine yet and are invisible). */
export function findInstance(sql: Sql, id: string): InstanceRow | undefined {
  return sql<InstanceRow>`SELECT * FROM instances WHERE id = ${id} AND machine_id IS NOT NULL`[0];
}

export function listInstances(sql: Sql): InstanceRow[] {
  return sql<InstanceRow>`SELECT * FROM instances WHERE machine_id IS NOT NULL ORDER BY created_ms DESC, id DESC`;
}

export function addEvent(sql: Sql, instanceId: string, message: string, at: string): void {
  sql`INSERT INTO events (instance_id, message, created_at) VALUES (${instanceId}, ${message}, ${at})`;
}

/** Newest first by when it happened: a host's report can arrive after a later request's event. */
export function listEvents(sql: Sql, instanceId: string): { message: string; created_at: string }[] {
  return sql<{ message: string; created_at: string }>`
    SELECT message, created_at FROM events WHERE instance_id = ${instanceId} ORDER BY created_at DESC, seq DESC`;
}
