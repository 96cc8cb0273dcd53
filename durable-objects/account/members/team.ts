// The account's people, as the AccountDO hands them its calls: the members and their roles (the
// RoleSource every credential check asks), invitations and joining, role changes and removals, the
// account's creation at sign-up with its owner, and its name.
import { clock } from "../../../core/clock.ts";
import type { Failure } from "../../../core/errors.ts";
import type { Role } from "../../contracts/members.ts";
import type { RoleSource } from "../credentials/credential-check.ts";
import { createForOwner, type NewOwnedAccount } from "./account-creation.ts";
import { Invitations } from "./invitations.ts";
import { Joining } from "./joining.ts";
import { MemberChanges, type MemberChangeParts } from "./member-changes.ts";
import { keyRole } from "./member-keys.ts";
import { Members } from "./members.ts";
import { recordAudit } from "../audit/audit-log.ts";

export class Team implements RoleSource {
  readonly members: Members;
  readonly joining: Joining;
  readonly changes: MemberChanges;
  private readonly parts: MemberChangeParts;

  constructor(parts: MemberChangeParts) {
    this.parts = parts;
    this.members = new Members(parts.sql);
    this.joining = new Joining(parts, this.members, new Invitations(parts.sql));
    this.changes = new MemberChanges(parts, this.members);
  }

  memberRole(userId: string): Role | null {
    return this.members.roleOf(userId, clock.now());
  }

  keyRole(keySha256: string): Role | null {
    return keyRole(this.parts.sql, keySha256);
  }

  createForOwner(owner: NewOwnedAccount): { ok: true } | Failure {
    return this.parts.transaction(() => createForOwner(this.parts.sql, this.members, owner, clock.now()));
  }

  rename(name: string): void {
    this.parts.transaction(() => {
      this.parts.sql`UPDATE account SET name = ${name}`;
      recordAudit(this.parts.sql, { action: "account.update", target: { type: "account", id: null }, detail: `name "${name}"` });
    });
  }
}
