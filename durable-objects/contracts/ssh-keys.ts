// SSH keys as the Worker asks the AccountDO about them. The AccountDO is the authority for an
// account's keys (durable-objects/account/credentials/ssh-keys.ts); the Worker parses and fingerprints a key
// line (core/ssh-public-key.ts) before it asks, so the object stores only keys that parsed.
import type { SshKeyType } from "../../core/ssh-public-key.ts";

/** At most this many SSH keys per account. */
export const MAX_SSH_KEYS = 20;

export interface SshKeyItem {
  id: string;
  name: string;
  type: SshKeyType;
  fingerprint: string;
  created_at: string;
  last_used_at: string | null;
}

/** A key the SSH server may accept: its type and base64 blob, as on the public key line. */
export interface AllowedSshKey {
  id: string;
  type: SshKeyType;
  blob: string;
}

export type SshKeyCall =
  | { op: "list" }
  | { op: "add"; type: SshKeyType; blob: string; fingerprint: string; name: string }
  | { op: "remove"; id: string }
  /** The SSH bridge's: the keys a connection to this instance opened now may use (the instance's own token may ask too). */
  | { op: "allowed"; instance_id: string };

export type SshKeyAnswer = { ok: true; items: SshKeyItem[] } | { ok: true; key: SshKeyItem } | { ok: true; allowed: AllowedSshKey[] } | { ok: true };
