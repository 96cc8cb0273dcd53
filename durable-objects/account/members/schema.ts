// The account's people: its members, its invitations, its name, and who made each API key
// (account/schema.ts creates them with the rest). Read and written by this folder alone, but for
// `api_keys.created_by`, which keys.ts writes as a key is made.
import { addColumnIfMissing } from "../../add-column.ts";
import { personOfLegacyAccount } from "../../contracts/members.ts";
import type { Sql } from "../../sql.ts";

export function createMemberSchema(sql: Sql): void {
  const before = sql`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'members'`.length > 0;
  // members.ts. `last_seen_ms`: the member's last call to this account, to the minute (null: none yet).
  sql`CREATE TABLE IF NOT EXISTS members (
    user_id TEXT PRIMARY KEY, email TEXT NOT NULL, role TEXT NOT NULL, joined_at TEXT NOT NULL, last_seen_ms INTEGER)`;
  // invitations.ts: only the token's SHA-256; live while not used, not revoked and before `expires_ms`.
  sql`CREATE TABLE IF NOT EXISTS invitations (
    id TEXT PRIMARY KEY, email TEXT NOT NULL, role TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL,
    expires_ms INTEGER NOT NULL, used_at TEXT, revoked INTEGER NOT NULL DEFAULT 0)`;
  // What the account is called (GET /v1/me, the switcher); null until named (account-record.ts).
  addColumnIfMissing(sql, "account", "name", "TEXT");
  // The member who made the key (a key made with a key: that key's maker); null: made before teams or by the operator.
  addColumnIfMissing(sql, "api_keys", "created_by", "TEXT");
  // An account from before teams with a login: that login becomes its person (same 16 characters), the owner.
  if (!before) {
    for (const { id, email, created_at } of sql<{ id: string; email: string; created_at: string }>`
      SELECT id, email, created_at FROM account WHERE email IS NOT NULL`) {
      sql`INSERT INTO members (user_id, email, role, joined_at) VALUES (${personOfLegacyAccount(id)}, ${email}, 'owner', ${created_at})`;
    }
  }
}
