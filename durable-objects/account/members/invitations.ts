// Invitations into the account: a link whose token (`gpv_<account id>_<secret>`, only its SHA-256 kept)
// is single use, bound to one email and live for INVITATION_TTL_MS; pending ones are listed and can
// be revoked. A new invitation for an email replaces the pending one, so one link works per person.
import { iso } from "../../../core/clock.ts";
import { invitationTokens } from "../../../core/credentials.ts";
import { fail, type Failure } from "../../../core/errors.ts";
import { sha256Hex } from "../../../core/hash.ts";
import { randomBase32 } from "../../../core/ids.ts";
import type { InvitationFor, InvitationView, Role } from "../../contracts/members.ts";
import type { Sql } from "../../sql.ts";
import { recordAudit } from "../audit/audit-log.ts";

export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;
export const MAX_PENDING_INVITATIONS = 100;

/** The one answer for a token that is no live invitation: which of these it was is nobody's business. */
export const notValid = (): Failure => fail("not_found", "this invitation is not valid: used, revoked or expired");

interface InvitationRow {
  id: string;
  email: string;
  role: Role;
  created_at: string;
  expires_ms: number;
}

export class Invitations {
  private readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  /** Synchronous (the token hashed before), so it can join a transaction. */
  create(invited: { email: string; role: Role }, tokenHash: string, nowMs: number): InvitationView | Failure {
    this.sql`UPDATE invitations SET revoked = 1 WHERE email = ${invited.email} AND used_at IS NULL AND revoked = 0`;
    if (this.pending(nowMs).length >= MAX_PENDING_INVITATIONS) {
      return fail("conflict", `an account may have at most ${MAX_PENDING_INVITATIONS} pending invitations: revoke one first`);
    }
    const row: InvitationRow = { id: `inv-${randomBase32(12)}`, ...invited, created_at: iso(nowMs), expires_ms: nowMs + INVITATION_TTL_MS };
    this.sql`INSERT INTO invitations (id, email, role, token_hash, created_at, expires_ms)
      VALUES (${row.id}, ${row.email}, ${row.role}, ${tokenHash}, ${row.created_at}, ${row.expires_ms})`;
    return toView(row);
  }

  /** The live ones, oldest first. */
  pending(nowMs: number): InvitationView[] {
    return this.sql<InvitationRow>`SELECT id, email, role, created_at, expires_ms FROM invitations
      WHERE used_at IS NULL AND revoked = 0 AND expires_ms > ${nowMs} ORDER BY created_at, id`.map(toView);
  }

  /** False when `id` names no pending invitation. */
  revoke(id: string, nowMs: number): boolean {
    const [revoked] = this.sql<{ email: string; role: Role }>`UPDATE invitations SET revoked = 1
      WHERE id = ${id} AND used_at IS NULL AND revoked = 0 AND expires_ms > ${nowMs} RETURNING email, role`;
    if (revoked) recordAudit(this.sql, { action: "invitation.revoke", target: { type: "invitation", id }, detail: `${revoked.email} as ${revoked.role}` });
    return revoked !== undefined;
  }

  /** The live invitation whose token hashes to `tokenHash` (invitationHash), or 404 `not_found` for anything else. */
  live(accountId: string, tokenHash: string | null, nowMs: number): InvitationFor | Failure {
    if (tokenHash === null) return notValid();
    const [row] = this.sql<InvitationRow>`SELECT id, email, role, created_at, expires_ms FROM invitations
      WHERE token_hash = ${tokenHash} AND used_at IS NULL AND revoked = 0 AND expires_ms > ${nowMs}`;
    return row ? { invitation_id: row.id, account_id: accountId, email: row.email, role: row.role } : notValid();
  }

  /** Marks it used; false when it was not live any more (a use or a revocation meanwhile). */
  use(id: string, at: string): boolean {
    return this.sql`UPDATE invitations SET used_at = ${at} WHERE id = ${id} AND used_at IS NULL AND revoked = 0 RETURNING id`.length > 0;
  }
}

/** A new invitation's token (shown this once) and its hash (all that is kept). */
export async function newInvitationToken(accountId: string): Promise<{ token: string; hash: string }> {
  const token = invitationTokens.issue(accountId);
  return { token, hash: await sha256Hex(token) };
}

/** The hash `token` is looked up by; null when it is no invitation of `accountId`. */
export async function invitationHash(accountId: string, token: string): Promise<string | null> {
  return invitationTokens.ownerOf(token) === accountId ? sha256Hex(token) : null;
}

function toView(row: InvitationRow): InvitationView {
  return { id: row.id, email: row.email, role: row.role, created_at: row.created_at, expires_at: iso(row.expires_ms) };
}
