// Messages between Durable Objects, delivered by retried outboxes and applied idempotently.
import type { ContainerSpec, ContainerState } from "../protocol/messages.ts";

/** MachineDO -> AccountDO, numbered per machine; the AccountDO applies each seq once, in order. */
export type MachineReport =
  | { seq: number; kind: "state"; instance_id: string; state: ContainerState; message: string; at: number }
  | { seq: number; kind: "event"; instance_id: string; message: string; at: number }
  | { seq: number; kind: "host"; online: boolean; instance_ids: string[]; at: number }
  /** The HTTP ports of a running container that answer their readiness path now (the whole set). */
  | { seq: number; kind: "ready"; instance_id: string; ready_ports: number[]; at: number };

/** A report as the MachineDO queues it: its outbox assigns the seq. */
export type MachineReportBody = MachineReport extends infer R ? (R extends MachineReport ? Omit<R, "seq"> : never) : never;

/** AccountDO -> MachineDO. `generation` orders changes of one instance; older ones are ignored. */
export interface DesiredStateChange {
  instance_id: string;
  desired: "stopped" | "destroyed";
  generation: number;
}

export interface ReserveRequest {
  account_id: string;
  instance_id: string;
  gpu_model: string;
  gpu_count: number;
  generation: number;
  spec: ContainerSpec;
}
