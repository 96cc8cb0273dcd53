// The account's members and their roles: the authority for who may call this account and with which
// role (credential-check.ts asks on every call). A person's use of the account is written down at most
// once a minute, as an API key's is, so a request does not pay a storage write.
import { iso } from "../../../core/clock.ts";
import { LAST_USED_RESOLUTION_MS } from "../../contracts/credential-lifetimes.ts";
import type { AccountMembership, MemberView, Role } from "../../contracts/members.ts";
import type { Sql } from "../../sql.ts";

interface MemberRow {
  user_id: string;
  email: string;
  role: Role;
  joined_at: string;
  last_seen_ms: number | null;
}

export class Members {
  private readonly sql: Sql;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  /** The member's role, recording their use at `nowMs`; null when they are no member. */
  roleOf(userId: string, nowMs: number): Role | null {
    const row = this.find(userId);
    if (!row) return null;
    if (row.last_seen_ms === null || nowMs - row.last_seen_ms >= LAST_USED_RESOLUTION_MS) {
      this.sql`UPDATE members SET last_seen_ms = ${nowMs} WHERE user_id = ${userId}`;
    }
    return row.role;
  }

  find(userId: string): MemberRow | undefined {
    return this.sql<MemberRow>`SELECT user_id, email, role, joined_at, last_seen_ms FROM members WHERE user_id = ${userId}`[0];
  }

  /** Everyone, owners first, then by when they joined. */
  list(): MemberView[] {
    return this.sql<MemberRow>`SELECT user_id, email, role, joined_at, last_seen_ms FROM members
      ORDER BY role = 'owner' DESC, joined_at, user_id`.map(toView);
  }

  /** `account` as one of the person's accounts: its id and name, and their role; null when they are no member. */
  membership(userId: string, account: { id: string; name: string }): AccountMembership | null {
    const member = this.find(userId);
    return member ? { id: account.id, name: account.name, role: member.role } : null;
  }

  /** Adds the person unless they are a member already (who keeps their role); true when added. */
  add(member: { user_id: string; email: string; role: Role }, at: string): boolean {
    return this.sql`INSERT INTO members (user_id, email, role, joined_at) VALUES (${member.user_id}, ${member.email}, ${member.role}, ${at})
      ON CONFLICT (user_id) DO NOTHING RETURNING user_id`.length > 0;
  }

  setRole(userId: string, role: Role): void {
    this.sql`UPDATE members SET role = ${role} WHERE user_id = ${userId}`;
  }

  delete(userId: string): void {
    this.sql`DELETE FROM members WHERE user_id = ${userId}`;
  }

  owners(): number {
    return this.sql<{ n: number }>`SELECT COUNT(*) AS n FROM members WHERE role = 'owner'`[0]!.n;
  }

  isMemberEmail(email: string): boolean {
    return this.sql`SELECT 1 FROM members WHERE email = ${email}`.length > 0;
  }
}

export function toView(row: MemberRow): MemberView {
  return {
    user_id: row.user_id, email: row.email, role: row.role, joined_at: row.joined_at,
    last_seen_at: row.last_seen_ms === null ? null : iso(row.last_seen_ms),
  };
}
