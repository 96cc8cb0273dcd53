// Messages between Durable Objects, delivered by retried outboxes and applied idempotently.
import type { ContainerSpec, ContainerState } from "../../protocol/messages.ts";
import type { Opener } from "./opener.ts";

/** MachineDO -> AccountDO, numbered per machine; the AccountDO applies each seq once, in order. */
export type MachineReport =
  | { seq: number; kind: "state"; instance_id: string; state: ContainerState; message: string; at: number }
  | { seq: number; kind: "event"; instance_id: string; message: string; at: number }
  /** `ssh_host_key`: the host's SSH server's public key line, when it comes online with one. */
  | { seq: number; kind: "host"; online: boolean; instance_ids: string[]; at: number; ssh_host_key?: string }
  /** An API key (by its SHA-256) opened the proxy at `at`; sent at most once a minute per key. */
  | { seq: number; kind: "key_used"; key_sha256: string; at: number }
  /** An SSH key (by its id on the account) authenticated a connection at `at`; sent at most once a minute per key. */
  | { seq: number; kind: "ssh_key_used"; key_id: string; at: number }
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

/**
 * The SHA-256 of every live API key of an account that may use its instances, as the MachineDOs
 * hosting them hold it to admit proxied requests and web apps: `hashes` reach every instance, `limited`
 * (absent from an AccountDO of before) only the instances they name (null: all) until they expire (null:
 * never). `version` increases with every key change; a MachineDO keeps the newest.
 */
export interface KeySet {
  account_id: string;
  version: number;
  hashes: string[];
  limited?: LimitedKey[];
}

export interface LimitedKey {
  hash: string;
  instance_ids: string[] | null;
  expires_ms: number | null;
}

/**
 * Credentials of `account_id` that have ended, sent to every host of the account: browser sessions (a
 * sign-out, a password change), SSH keys removed from the account, and API keys the hosts' key set
 * never held (kept to some instances, expiring or without instances:use: the account judged what they
 * opened). What they opened there ends: the web apps a session opened, and every stream opened with
 * them (stream-credentials.ts). A key of the set is not listed: a set without it says it has ended.
 */
export interface CredentialsEnded {
  kind: "credentials_ended";
  account_id: string;
  session_ids: string[];
  ssh_key_ids: string[];
  /** Absent from ends queued before keys were listed. */
  key_sha256s?: string[];
}

/** Queued by AccountDOs before CredentialsEnded existed, to the hosts a session opened web apps on: the same, for sessions alone. */
export interface EndAppSessions {
  kind: "end_app_sessions";
  account_id: string;
  session_ids: string[];
}

/** What an AccountDO's outbox carries to a MachineDO, in order. (Rows queued before key sets existed are desired-state changes.) */
export type MachineDirective = DesiredStateChange | { kind: "key_set"; key_set: KeySet } | CredentialsEnded | EndAppSessions;

export const isKeySetDirective = (directive: MachineDirective): directive is { kind: "key_set"; key_set: KeySet } =>
  "kind" in directive && directive.kind === "key_set";

export const isCredentialsEndedDirective = (directive: MachineDirective): directive is CredentialsEnded | EndAppSessions =>
  "kind" in directive && (directive.kind === "credentials_ended" || directive.kind === "end_app_sessions");

/** AccountDO -> MachineDO: a one-time ticket for an instance web app, for a caller the account has admitted. */
export interface AppTicketRequest {
  account_id: string;
  instance_id: string;
  port: number;
  /** A key is checked against the account's key set on every request; a session's end ends the app (CredentialsEnded). */
  opener: Opener;
  /** The account's key set, so a key that opens an app is known to the machine from the first request. */
  key_set: KeySet;
}

export interface ReserveRequest {
  account_id: string;
  instance_id: string;
  gpu_model: string;
  gpu_count: number;
  generation: number;
  spec: ContainerSpec;
  /** The account's key set, so the proxy admits its keys from the first request. */
  key_set: KeySet;
}
