// The audit log as the account answers it (GET /v1/audit-log): who changed what, when and from where.
// An entry is written in the same transaction as the change it records (account/audit/).

/** Who made a change: a person (id: user id, label: email), an API key (id: key id, label: its name or prefix), the operator or the service itself. */
export interface AuditActor {
  type: "user" | "key" | "operator" | "system";
  id: string | null;
  label: string;
}

export interface AuditEntry {
  id: number;
  at: string;
  actor: AuditActor;
  /** `<what>.<change>`, e.g. `instance.launch`, `key.create`, `member.role`. */
  action: string;
  target: { type: string; id: string | null };
  /** The caller's address for a person's or a key's change; null for the operator's and the system's. */
  ip: string | null;
  detail: string;
}

export interface AuditQuery {
  limit: number;
  /** An entry id: the page continues below it; null for the newest. */
  before: number | null;
  /** An actor type, or an actor's id or label (a user id or email, a key id or name). */
  actor: string | null;
  /** An action, or its group alone (`instance` for every `instance.*`). */
  action: string | null;
}

export interface AuditPage {
  items: AuditEntry[];
  next_cursor: string | null;
}
