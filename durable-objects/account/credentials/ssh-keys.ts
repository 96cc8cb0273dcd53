// An account's SSH public keys: added (one of each, at most MAX_SSH_KEYS), listed, removed. The
// AccountDO is the authority; the SSH bridge reads the live set when a connection opens, so a removed
// key is refused from the next connection on, and its removal reaches every host of the account,
// which ends the connections that authenticated with it (credential-ends.ts); the removal is answered
// once they all have. A key's last use comes from its MachineDOs' reports.
import { clock, iso } from "../../../core/clock.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import { randomBase32 } from "../../../core/ids.ts";
import type { SshKeyType } from "../../../core/ssh-public-key.ts";
import { MAX_SSH_KEYS, type AllowedSshKey, type SshKeyAnswer, type SshKeyCall, type SshKeyItem } from "../../contracts/ssh-keys.ts";
import type { Sql } from "../../sql.ts";
import type { CredentialEnds } from "./credential-ends.ts";
import { recordAudit } from "../audit/audit-log.ts";

export type { SshKeyCall };
export type SshKeyResult = SshKeyAnswer | Failure;

interface SshKeyRow {
  id: string; name: string; type: string; blob: string; fingerprint: string; created_at: string; last_used_at: string | null;
}

export function createSshKeySchema(sql: Sql): void {
  sql`CREATE TABLE IF NOT EXISTS ssh_keys (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, blob TEXT NOT NULL UNIQUE, fingerprint TEXT NOT NULL,
    created_at TEXT NOT NULL, last_used_at TEXT)`;
}

export class SshKeys {
  private readonly sql: Sql;
  private readonly transaction: <T>(fn: () => T) => T;
  private readonly ends: CredentialEnds;

  constructor(sql: Sql, transaction: <T>(fn: () => T) => T, ends: CredentialEnds) {
    this.sql = sql;
    this.transaction = transaction;
    this.ends = ends;
  }

  async handle(call: SshKeyCall): Promise<SshKeyAnswer | Failure> {
    if (call.op === "list") return { ok: true, items: this.rows().map(toItem) };
    if (call.op === "add") return this.add(call);
    if (call.op === "allowed") return { ok: true, allowed: this.allowed() };
    const remove = () => {
      const [removed] = this.sql<{ name: string; fingerprint: string }>`DELETE FROM ssh_keys WHERE id = ${call.id} RETURNING name, fingerprint`;
      if (removed) recordAudit(this.sql, { action: "ssh_key.remove", target: { type: "ssh_key", id: call.id }, detail: `"${removed.name}" (${removed.fingerprint})` });
      return removed !== undefined;
    };
    return this.ends.sshKeyRemoved(call.id, remove, `no SSH key ${call.id} in this account`);
  }

  /** The keys an SSH connection opened now may authenticate with. */
  private allowed(): AllowedSshKey[] {
    return this.rows().map((row) => ({ id: row.id, type: row.type as SshKeyType, blob: row.blob }));
  }

  private add(call: Extract<SshKeyCall, { op: "add" }>): SshKeyAnswer | Failure {
    const id = "sshk_" + randomBase32(16);
    // Checked and inserted in one synchronous step: simultaneous adds cannot pass the limit or add a key twice.
    const refusal = this.transaction(() => {
      if (this.sql`SELECT 1 FROM ssh_keys WHERE blob = ${call.blob}`.length > 0) return `this key is already on the account (${call.fingerprint})`;
      if (this.rows().length >= MAX_SSH_KEYS) return `an account holds at most ${MAX_SSH_KEYS} SSH keys; remove one first`;
      this.sql`INSERT INTO ssh_keys (id, name, type, blob, fingerprint, created_at)
          VALUES (${id}, ${call.name}, ${call.type}, ${call.blob}, ${call.fingerprint}, ${iso(clock.now())})`;
      recordAudit(this.sql, { action: "ssh_key.add", target: { type: "ssh_key", id }, detail: `"${call.name}" (${call.fingerprint})` });
      return null;
    });
    return refusal ? fail("conflict", refusal) : { ok: true, key: toItem(this.rows().find((row) => row.id === id)!) };
  }

  private rows(): SshKeyRow[] {
    return this.sql<SshKeyRow>`SELECT * FROM ssh_keys ORDER BY rowid`;
  }
}

/**
 * A connection a MachineDO saw the key authenticate (reported at most once a minute per key): moves
 * its last_used_at forward, never back (reports of two machines may arrive out of order). A key
 * removed since changes nothing.
 */
export function recordSshKeyUse(sql: Sql, keyId: string, at: string): void {
  sql`UPDATE ssh_keys SET last_used_at = ${at} WHERE id = ${keyId} AND (last_used_at IS NULL OR last_used_at < ${at})`;
}

function toItem(row: SshKeyRow): SshKeyItem {
  return { id: row.id, name: row.name, type: row.type as SshKeyType, fingerprint: row.fingerprint, created_at: row.created_at, last_used_at: row.last_used_at };
}
